import FetchedResults

extension PostgreSQLStore {
    // MARK: - Reading ahead

    /// Sends the next step's read of a progressive fetch without waiting for it: the server runs
    /// it while the program handles the rows of the step before, which over a network otherwise
    /// wait for each other. One statement, outside any transaction: the keyset parts joined by
    /// `UNION ALL` under one `LIMIT` (each part runs only as far as the limit needs), each
    /// returning rows only if the change feed holds nothing since `position` — then the rows are
    /// exactly those after `boundary` in the results as they stand.
    ///
    /// Only with a batch size (keys and sort values, no full rows). Returns whether it was sent.
    public func readAhead(
        limit: Int, after boundary: LoadBoundary<[String?]>, unchangedSince position: PostgreSQLChangeFeed.Position
    ) throws -> Bool {
        guard let connection, let query, query.request.fetchBatchSize > 0 else { return false }
        let parameters = KeysetParameters()
        let parts = KeysetPlan.sql(
            ascending: query.sortKeys.map(\.descriptor.ascending), boundaryIsNull: boundary.values.map { $0 == nil }
        ) {
            PostgreSQLKeyset(query: query, boundary: boundary, parameters: parameters)
        }
        let positionParameter = "$\(query.arguments.count + parameters.values.count + 1)"
        let unchanged =
            "(SELECT NOT EXISTS (SELECT 1 FROM feed_changes) AND fetched_results_pruned IS NOT TRUE FROM feed_state)"
        let predicate = query.predicate.map { "(\($0.sql)) AND " } ?? ""
        let selects = parts.map { part in
            "(SELECT \(query.keysOnlySQL) FROM \(query.fromSQL) WHERE \(predicate)\(part.sql) AND \(unchanged)"
                + " ORDER BY \(query.orderBySQL) LIMIT \(limit))"
        }
        let sql =
            PostgreSQLChangeFeed.changesCTE(positionParameter: positionParameter) + "\n"
            + selects.joined(separator: "\nUNION ALL\n") + "\nLIMIT \(limit)"
        do {
            try connection.sendAhead(sql, query.arguments + parameters.values + [position.snapshot])
        } catch let error as PostgreSQLError where error.isConnectionLost {
            lose(connection, error)
            throw error
        }
        sentReadAhead = (boundary, limit, position)
        sentLook = nil
        return true
    }

    /// Hands the rows read ahead to `body`, and returns true; returns false
    /// when there are none to take: nothing sent, a change committed before the read (it found
    /// no rows then), or rows out of the order (`UNION ALL` keeps its parts' order in
    /// PostgreSQL's plans, which each read checks).
    ///
    /// When they reach their limit, the read of the `nextLimit` rows after them is sent ahead
    /// before `body` takes them, under the same condition.
    public func takeReadAhead(
        readingAhead nextLimit: Int, in snapshot: PostgreSQLConnection,
        _ body: (OrderedRead<PostgreSQLRow, [String?]>) throws -> Void
    ) throws -> Bool {
        guard let sent = sentReadAhead, let connection else { return false }
        sentReadAhead = nil
        let query = prepared
        do {
            var taker = OrderedRowTaker(
                query: query, limit: sent.limit, after: sent.boundary, sectioned: sectionNameKeyPath != nil)
            taker.checkingOrder = true
            let arrived = try connection.forEachRowSentAhead(
                beforeRows: { count, last in
                    guard count == sent.limit, let last else { return }
                    let reader = RowReader(columns: last.columns, query: query)
                    let rowID = try reader.rowID(last)
                    var key: [UInt8] = []
                    reader.appendKey(last, rowID: rowID, to: &key)
                    let next = LoadBoundary(key: key, values: reader.sortValues(last), rowID: rowID)
                    _ = try readAhead(limit: nextLimit, after: next, unchangedSince: sent.position)
                }, { try taker.take($0, isHeld: { _ in false }) })
            guard arrived, taker.read.count > 0, taker.isInOrder else {
                sentReadAhead = nil
                return false
            }
            try body(taker.read)
            stepsReadAhead += 1
            return true
        } catch let error as PostgreSQLError where error.isConnectionLost {
            lose(connection, error)
            throw error
        }
    }
}
