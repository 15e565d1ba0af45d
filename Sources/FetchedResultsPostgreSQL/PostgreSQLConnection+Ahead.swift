import CLibpq

#if canImport(Glibc)
    import Glibc
#endif

extension PostgreSQLConnection {
    /// Where the query sent ahead is.
    enum SentAhead {
        case none
        /// Sent; its result has not been read.
        case inFlight
        /// Read, and kept until taken (a `PGresult` whose status was `PGRES_TUPLES_OK`).
        case arrived(OpaquePointer)
    }

    /// Sends a query without waiting for its result, so that the server runs it while the
    /// program does other work; ``forEachRowSentAhead(beforeRows:_:)`` takes its rows later.
    /// Any other statement on the connection first reads its result and keeps it, and a new one
    /// sent ahead replaces it. Outside a transaction only: it is its own statement.
    ///
    /// - Throws: ``PostgreSQLError/connectionLost(_:)`` when it could not be sent.
    public func sendAhead(_ sql: String, _ parameters: [(any PostgreSQLValue)?]) throws {
        discardSentAhead()
        let sent = Self.withCParameters(postgreSQLParameters(parameters)) { count, values in
            PQsendQueryParams(connection, sql, count, nil, values, nil, nil, 0)
        }
        guard sent == 1 else { throw PostgreSQLError.connectionLost(Self.text(PQerrorMessage(connection))) }
        sentAhead = .inFlight
    }

    /// Hands the rows of the query sent ahead to `body` one by one, waiting for them if they
    /// have not all arrived; `beforeRows` first gets their number and the last one (nil when
    /// none), and may send the next query ahead, which runs while `body` takes these rows.
    /// Returns false when there was none, or when the server refused it: the caller then runs
    /// its query itself, and meets the error there if it stays.
    public func forEachRowSentAhead(
        beforeRows: (_ count: Int, _ last: PostgreSQLRawRow?) throws -> Void, _ body: (PostgreSQLRawRow) throws -> Void
    ) throws -> Bool {
        settleSentAhead()
        guard case let .arrived(result) = sentAhead else { return false }
        sentAhead = .none
        defer { PQclear(result) }
        let count = PQntuples(result)
        try beforeRows(Int(count), count > 0 ? PostgreSQLRawRow(result: result, row: count - 1) : nil)
        for row in 0..<count { try body(PostgreSQLRawRow(result: result, row: row)) }
        return true
    }

    /// What became of a query sent ahead.
    enum RowsSentAhead {
        /// Its rows.
        case rows(PostgreSQLRows)
        /// Still on its way: the socket turns readable when more of it arrives.
        case onItsWay
        /// None was sent, or the server refused it: the caller runs its query itself, and meets
        /// the error there if it stays.
        case none
    }

    /// The rows of the query sent ahead, waiting at most `patience` for them, so that a loop
    /// waiting on a slow server or a cut link stays responsive.
    ///
    /// - Throws: ``PostgreSQLError/connectionLost(_:)`` when the connection broke.
    func rowsSentAhead(waitingAtMost patience: Duration) throws -> RowsSentAhead {
        if case .inFlight = sentAhead {
            let deadline = ContinuousClock.now + patience
            while true {
                guard PQconsumeInput(connection) == 1 else {
                    sentAhead = .none
                    throw PostgreSQLError.connectionLost(Self.text(PQerrorMessage(connection)))
                }
                if PQisBusy(connection) == 0 { break }
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { return .onItsWay }
                var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, Int32(clamping: Int64((left / .milliseconds(1)).rounded(.up))))
            }
            settleSentAhead()
        }
        guard case let .arrived(result) = sentAhead else { return .none }
        sentAhead = .none
        defer { PQclear(result) }
        return .rows(PostgreSQLRows(result))
    }

    /// Whether no transaction is open (nor failed) on the connection.
    var isIdle: Bool { PQtransactionStatus(connection) == PQTRANS_IDLE }

    /// Forgets the query sent ahead, reading its result first if it is on its way.
    public func discardSentAhead() {
        settleSentAhead()
        if case let .arrived(result) = sentAhead { PQclear(result) }
        sentAhead = .none
    }

    /// Reads the result of a query in flight, so that the connection can run another; keeps it
    /// when it holds rows. A broken connection leaves nothing: the next statement reports it.
    func settleSentAhead() {
        guard case .inFlight = sentAhead else { return }
        var kept: OpaquePointer?
        while let result = PQgetResult(connection) {
            if kept == nil, PQresultStatus(result) == PGRES_TUPLES_OK { kept = result } else { PQclear(result) }
        }
        sentAhead = kept.map { .arrived($0) } ?? .none
    }
}
