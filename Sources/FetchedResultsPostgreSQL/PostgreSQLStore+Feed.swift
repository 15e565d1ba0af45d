import FetchedResults

extension PostgreSQLStore {
    // MARK: - The change feed

    /// In one statement — one round trip, one snapshot — the changes to the observed tables
    /// since `position` and the touched rows that still match: the rows the feed names, and the
    /// rows whose relationships lead to related rows it names. The statement is prepared once
    /// per connection: parsing and planning it cost more than running it.
    ///
    /// With a batch size, a section name not in memory is read after that statement, as it is
    /// then; a change it already shows is delivered by the next look.
    ///
    /// One that finds changes calls for the next look soon (``LookPace``).
    public func changes(
        since position: PostgreSQLChangeFeed.Position, in connection: PostgreSQLConnection
    ) throws -> FeedRead<PostgreSQLRow, PostgreSQLChangeFeed.Position> {
        // This look sees every commit made so far.
        lookIsDue = false
        let start = ContinuousClock.now
        let query = prepared, statement = lookStatement ?? makeLookStatement()
        let found = try lookRows(
            statement.sql, query.arguments + [position.snapshot, statement.tables], since: position, connection)
        guard let result = found else {
            looks.answerPending()
            return .changed(touched: [], rows: [:], position: position)
        }
        // History this controller had not read is gone, or a table was truncated.
        if result.rows.contains(where: { $0[1] == "t" || $0[2] == "t" }) {
            looks.found(at: start)
            return .mustRefetch
        }
        let newPosition = PostgreSQLChangeFeed.Position(snapshot: result.rows.first?[0] ?? position.snapshot)
        noteReplica(result.rows.first?[3] ?? nil, at: start)
        let columns = PostgreSQLColumns(Array(result.columns.dropFirst(5)))
        guard let keyIndex = columns.index(of: query.keyColumn).map({ $0 + 5 }) else {
            throw FetchedResultsError.tableWithoutRowID(table: query.table)
        }
        var touched: Set<Int64> = []
        var rows: [Int64: PostgreSQLRow] = [:]
        for values in result.rows {
            guard let text = values[4] else { continue }
            guard let id = Int64(text) else {
                throw FetchedResultsError.rowIDUnreadable(table: query.table, column: query.keyColumn)
            }
            touched.insert(id)
            if values[keyIndex] != nil {
                rows[id] = PostgreSQLRow(columns: columns, values: Array(values.dropFirst(5)))
            }
        }
        if !touched.isEmpty { looks.found(at: start) }
        return .changed(touched: touched, rows: rows, position: newPosition)
    }

    /// The look's statement for the request (see ``changes(since:in:)``) and its observed
    /// tables' parameter, kept for the next looks: they are the same text every time, and making
    /// them cost more than the rest of a look that finds one change. The statement's parameters:
    /// the request's arguments, then the position and the observed tables.
    private func makeLookStatement() -> (sql: String, tables: String) {
        let query = prepared, alias = PostgreSQLQuery.rowAlias, tables = observedTables
        let positionParameter = "$\(query.arguments.count + 1)",
            tablesParameter = "$\(query.arguments.count + 2)::text[]"
        var foreignKeysDone: Set<String> = []
        let referring = query.related.map(\.relationship).filter { foreignKeysDone.insert($0.foreignKey).inserted }.map
        { relationship in
            let destination = (tables.firstIndex(of: relationship.destinationTable) ?? 0) + 1
            return """
                UNION SELECT referring.\(query.quotedKey) FROM \(query.quotedTable) AS referring
                JOIN feed_changes ON fetched_results_table = (\(tablesParameter))[\(destination)]
                                 AND referring.\(PostgreSQLChangeFeed.quotedName(relationship.foreignKey))
                                     = fetched_results_row
                """
        }.joined(separator: "\n")
        let predicate = query.predicate.map { " AND (\($0.sql))" } ?? ""
        let statement = """
            \(PostgreSQLChangeFeed.changesCTE(positionParameter: positionParameter)),
            touched AS (
                SELECT fetched_results_row AS fetched_results_touched FROM feed_changes
                WHERE fetched_results_table = (\(tablesParameter))[1] AND fetched_results_row IS NOT NULL
                \(referring)
            )
            SELECT fetched_results_snapshot, fetched_results_pruned,
                   EXISTS (SELECT 1 FROM feed_changes
                           WHERE fetched_results_row IS NULL AND fetched_results_table = ANY(\(tablesParameter))),
                   fetched_results_replica, fetched_results_touched, \(query.fullRowSQL)
            FROM feed_state
            LEFT JOIN touched ON true
            LEFT JOIN \(query.fromSQL) ON \(alias).\(query.quotedKey) = fetched_results_touched\(predicate)
            """
        let made = (sql: statement, tables: PostgreSQLConnection.arrayLiteral(tables))
        lookStatement = made
        return made
    }

    /// Notes where a standby's replay stands ("received replayed", in bytes), or that the
    /// server is a primary (nil).
    private func noteReplica(_ text: String?, at now: ContinuousClock.Instant) {
        let positions = text?.split(separator: " ") ?? []
        let received = positions.first.flatMap { Int64($0) }
        let replayed = positions.count == 2 ? Int64(positions[1]) : nil
        replica.observe(received: received, replayed: replayed, at: now)
    }

    /// The rows of a look's statement. An event loop's look (``didWake(inLoop:)``) outside a
    /// transaction sends it ahead and waits for its rows at most ``lookPatience``: nil while they
    /// are on their way (the socket wakes the loop when they arrive, and the next look takes
    /// them), so that a slow server or a cut link never holds up the caller's loop. A look after
    /// a write, in a fetch, or beside a read ahead waits for its rows.
    private func lookRows(
        _ sql: String, _ arguments: [(any PostgreSQLValue)?], since position: PostgreSQLChangeFeed.Position,
        _ connection: PostgreSQLConnection
    ) throws -> PostgreSQLRows? {
        // While the look sent ahead runs, libpq says a command is active: no transaction is open.
        let mayReturnEarly = lookBegan && sentReadAhead == nil && (sentLook == position || connection.isIdle)
        lookBegan = false
        if mayReturnEarly {
            if sentLook != position {
                try connection.sendPreparedAhead(sql, arguments)
                sentLook = position
            }
            switch try connection.rowsSentAhead(waitingAtMost: Self.lookPatience) {
            case let .rows(rows):
                sentLook = nil
                return rows
            case .onItsWay: return nil
            case .none: break
            }
        } else if sentLook != nil {
            connection.discardSentAhead()
        }
        sentLook = nil
        return try connection.executePrepared(sql, arguments)
    }

    // MARK: - The cache

    /// The request's predicate and relationships, the fetched table's columns, and the
    /// database's identity (the cluster's system identifier and the database's oid). Read once
    /// per connection and request, so that saving a cache while the link is cut waits for
    /// nothing (a table altered meanwhile only makes the next launch refetch).
    ///
    /// - Throws: `FetchedResultsError.changeFeedMissing(table:installation:)` when an observed
    ///   table has no change feed: a cache could not be brought up to date.
    public func cacheValidity(in connection: PostgreSQLConnection) throws -> CacheValidity {
        if let known = knownValidity, known.connection === connection { return known.validity }
        let validity = try readCacheValidity(connection)
        knownValidity = (connection, validity)
        return validity
    }

    private func readCacheValidity(_ connection: PostgreSQLConnection) throws -> CacheValidity {
        try requireChangeFeed(connection)
        let query = prepared
        let identity =
            try connection.execute(
                """
                SELECT (SELECT system_identifier FROM pg_control_system())::text || '/'
                       || (SELECT oid FROM pg_database WHERE datname = current_database())::text
                """
            ).scalar ?? ""
        let columns =
            try connection.execute(
                """
                SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum)
                FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped
                """, [query.quotedTable]
            ).scalar ?? ""
        let fingerprint = [
            "key=\(query.keyColumn)",
            "predicate=\(query.predicate?.sql ?? "")",
            "arguments=\(query.arguments)",
            "relationships=\(query.related.map { "\($0.keyPath) \($0.relationship)" })",
        ].joined(separator: "; ")
        return CacheValidity(fingerprint: fingerprint, schema: columns, storeIdentity: identity)
    }

    public func feedPosition(of position: PostgreSQLChangeFeed.Position) -> String? {
        position.snapshot
    }

    /// A snapshot's text (`xmin:xmax:xip,…`), or nil for anything else.
    public func position(fromFeedPosition text: String) -> PostgreSQLChangeFeed.Position? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ",") } })
        else { return nil }
        return PostgreSQLChangeFeed.Position(snapshot: text)
    }
}
