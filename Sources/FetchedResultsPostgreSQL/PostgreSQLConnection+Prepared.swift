import CLibpq

extension PostgreSQLConnection {
    /// Runs a statement like ``execute(_:_:)``, but the server parses it once per connection: the
    /// first call prepares it under a name, later calls with the same text only bind the
    /// parameters and run it. For statements a program runs again and again (a controller's
    /// look at every commit, a score's `UPDATE`), whose parsing and planning cost more than
    /// their execution; PostgreSQL then plans each run afresh or, once a generic plan is
    /// estimated as cheap as the runs' own, keeps that plan.
    ///
    /// Statements stay prepared as long as the connection, so this is for a program's fixed
    /// texts, not for text that varies with each call. A statement the server refused (a table
    /// whose columns changed since it was prepared, say) is prepared again at its next call.
    @discardableResult
    public func executePrepared(_ sql: String, _ parameters: [(any PostgreSQLValue)?] = []) throws -> PostgreSQLRows {
        let parameters = postgreSQLParameters(parameters)
        do {
            return try runPrepared(sql, parameters)
        } catch PostgreSQLError.statementFailed(let state, _)
            where state == .featureNotSupported && PQtransactionStatus(connection) == PQTRANS_IDLE
        {
            // "cached plan must not change result type": the table's columns changed since the
            // statement was prepared. Outside a transaction the failed run did nothing, so it
            // runs again, prepared anew.
            return try runPrepared(sql, parameters)
        }
    }

    private func runPrepared(_ sql: String, _ parameters: [String?]) throws -> PostgreSQLRows {
        try deallocateForgottenStatements()
        let name = try preparedName(of: sql)
        do {
            return try withResult(parameters, { PostgreSQLRows($0) }) { connection, count, values in
                PQexecPrepared(connection, name, count, values, nil, nil, 0)
            }
        } catch let error as PostgreSQLError {
            if case .statementFailed = error { preparedStatements.forget(sql) }
            throw error
        }
    }

    /// Sends a statement like ``executePrepared(_:_:)`` without waiting for its result (see
    /// ``sendAhead(_:_:)``); ``rowsSentAhead(waitingAtMost:)`` takes it. Preparing it, the
    /// first time, waits.
    func sendPreparedAhead(_ sql: String, _ parameters: [(any PostgreSQLValue)?]) throws {
        discardSentAhead()
        try deallocateForgottenStatements()
        let name = try preparedName(of: sql)
        let sent = Self.withCParameters(postgreSQLParameters(parameters)) { count, values in
            PQsendQueryPrepared(connection, name, count, values, nil, nil, 0)
        }
        guard sent == 1 else { throw PostgreSQLError.connectionLost(Self.text(PQerrorMessage(connection))) }
        sentAhead = .inFlight
    }

    /// The name `sql` is prepared under on this connection, preparing it first if needed.
    private func preparedName(of sql: String) throws -> String {
        if let name = preparedStatements.names[sql] { return name }
        let name = preparedStatements.newName()
        // No parameter types given: the server infers them from the text, as for `PQexecParams`.
        try withResult([], { _ in }) { connection, _, _ in PQprepare(connection, name, sql, 0, nil) }
        preparedStatements.names[sql] = name
        return name
    }

    /// Frees on the server the statements that were forgotten after an error, once no
    /// transaction is open (inside a failed one, the server would refuse even that).
    private func deallocateForgottenStatements() throws {
        guard !preparedStatements.forgotten.isEmpty, PQtransactionStatus(connection) == PQTRANS_IDLE else { return }
        for name in preparedStatements.forgotten { try execute("DEALLOCATE " + name) }
        preparedStatements.forgotten.removeAll()
    }

    /// The statements a connection has prepared, by text, and those to free on the server.
    struct PreparedStatements {
        /// Statement names by their SQL text.
        var names: [String: String] = [:]
        /// Names no longer used, still prepared on the server.
        var forgotten: [String] = []
        private var count = 0

        /// A name no statement of this connection has had.
        mutating func newName() -> String {
            count += 1
            return "fetched_results_\(count)"
        }

        /// Stops using the statement prepared for `sql`; the next call prepares it again.
        mutating func forget(_ sql: String) {
            if let name = names.removeValue(forKey: sql) { forgotten.append(name) }
        }
    }
}
