@_exported import FetchedResults

extension PostgreSQLResultsController {
    // MARK: - Following the server

    /// Applies what was committed since the last look — by any connection, process or
    /// machine — and tells the delegate; returns whether anything touching the table was
    /// committed. Reads the notifications that woke the caller, then, in one statement (one
    /// round trip, one snapshot), the change feed from the controller's position and the
    /// touched rows.
    ///
    /// A lost connection is not thrown: the delegate hears it, ``connectionState`` says
    /// `reconnecting`, and later calls reconnect with back-off (see ``reconnectDeadline``) and
    /// catch up in one change set.
    ///
    /// - Throws: any other error (a dropped table, a refused query), which the delegate has
    ///   heard too; the results stay the last good ones, and the next call refetches.
    @discardableResult
    public func processExternalChanges() throws -> Bool {
        guard isTracking, state != nil else { return false }
        guard let connection = try? connect() else { return false }
        do {
            _ = try connection.notifications()
            return try catchUp(connection)
        } catch let error as PostgreSQLError where error.isConnectionLost {
            lose(connection, error)
            return false
        } catch {
            needsRefetch = true
            report(error)
            throw error
        }
    }

    /// Runs `body` in a transaction on the controller's own connection, then delivers the
    /// changes it (and anyone else) committed before returning, as a GRDB write delivers the
    /// SQLite controller's callbacks.
    ///
    /// - Throws: the error of `body` or of the transaction (nothing was committed then,
    ///   unless the connection broke while the commit was on its way: the server may or may
    ///   not have committed it).
    @discardableResult
    public func write<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        let connection = try connect()
        let value: T
        do {
            value = try connection.transaction { try body(connection) }
        } catch let error as PostgreSQLError where error.isConnectionLost {
            lose(connection, error)
            throw error
        }
        try processExternalChanges()
        return value
    }

    /// Reads the changes since the position with the touched rows in one statement, and
    /// applies them; after pruned history or a truncation, refetches in a repeatable-read
    /// transaction.
    ///
    /// With batches, a row or a section name not in memory is read after that statement, as it
    /// is then, as the SQLite controller reads batches: a change it already shows is delivered
    /// by the next look, which its commit's notification triggers.
    private func catchUp(_ connection: PostgreSQLConnection) throws -> Bool {
        guard let position else { return false }
        if !needsRefetch {
            let read = try readChanges(since: position, connection)
            if !read.mustRefetch {
                if !read.touched.isEmpty { try apply(touched: read.touched, fresh: read.rows, connection, notify: true) }
                self.position = read.position
                return !read.touched.isEmpty
            }
        }
        // History this controller had not read is gone: only a full comparison is exact.
        try connection.transaction(isolation: "REPEATABLE READ") { try refetchAndDiff(connection) }
        return true
    }

    /// What one look read: the new position, the touched row ids, and the touched rows that
    /// still match the request.
    struct ChangesRead {
        var position: PostgreSQLChangeFeed.Position
        var mustRefetch = false
        var touched: Set<Int64> = []
        var rows: [Int64: PostgreSQLRow] = [:]
    }

    /// The changes to the table since `position` and the touched rows, in one statement (one
    /// round trip, one snapshot). Touched: the rows the feed names, and the rows whose
    /// relationships lead to related rows it names.
    func readChanges(since position: PostgreSQLChangeFeed.Position, _ connection: PostgreSQLConnection) throws -> ChangesRead {
        let request = fetchRequest, alias = PostgreSQLFetchRequest.rowAlias
        let positionParameter = "$\(request.arguments.count + 1)", tablesParameter = "$\(request.arguments.count + 2)::text[]"
        let referring = related.map(\.relationship).uniqued(by: \.foreignKey).map { relationship in
            let destination = observedTables.firstIndex(of: relationship.destinationTable)! + 1
            return """
                UNION SELECT referring.\(request.quotedKey) FROM \(request.quotedTable) AS referring
                JOIN feed_changes ON fetched_results_table = (\(tablesParameter))[\(destination)]
                                 AND referring.\(PostgreSQLChangeFeed.quoted(relationship.foreignKey)) = fetched_results_row
                """
        }.joined(separator: "\n")
        let predicate = request.predicate.map { " AND (\($0))" } ?? ""
        let result = try connection.execute("""
            \(PostgreSQLChangeFeed.changesCTE(positionParameter: positionParameter)),
            touched AS (
                SELECT fetched_results_row AS fetched_results_touched FROM feed_changes
                WHERE fetched_results_table = (\(tablesParameter))[1] AND fetched_results_row IS NOT NULL
                \(referring)
            )
            SELECT fetched_results_snapshot, fetched_results_pruned,
                   EXISTS (SELECT 1 FROM feed_changes WHERE fetched_results_row IS NULL AND fetched_results_table = ANY(\(tablesParameter))),
                   fetched_results_touched, \(request.fullRowSQL(related: related))
            FROM feed_state
            LEFT JOIN touched ON true
            LEFT JOIN \(request.fromSQL) ON \(alias).\(request.quotedKey) = fetched_results_touched\(predicate)
            """, request.arguments + [position.snapshot, PostgreSQLConnection.arrayLiteral(observedTables)])
        var read = ChangesRead(position: PostgreSQLChangeFeed.Position(snapshot: result.rows.first?[0] ?? ""))
        read.mustRefetch = result.rows.contains { $0[1] == "t" || $0[2] == "t" }
        let columns = Array(result.columns.dropFirst(4))
        let keyIndex = 4 + (columns.firstIndex(of: request.keyColumn) ?? 0)
        for values in result.rows {
            guard let id = values[3].flatMap(Int64.init) else { continue }
            read.touched.insert(id)
            if values[keyIndex] != nil { read.rows[id] = PostgreSQLRow(columns: columns, values: Array(values.dropFirst(4))) }
        }
        return read
    }

    /// The fetched rows whose relationships lead to any of the given changed rows, by table
    /// (for catching up from a cache file).
    func rowsReferring(to changed: [String: Set<Int64>], _ connection: PostgreSQLConnection) throws -> Set<Int64> {
        var result: Set<Int64> = []
        for relationship in related.map(\.relationship).uniqued(by: \.foreignKey) {
            guard let ids = changed[relationship.destinationTable], !ids.isEmpty else { continue }
            let rows = try connection.execute(
                "SELECT \(fetchRequest.quotedKey) FROM \(fetchRequest.quotedTable) WHERE \(PostgreSQLChangeFeed.quoted(relationship.foreignKey)) = ANY($1::bigint[])",
                ["{" + ids.map(String.init).joined(separator: ",") + "}"])
            result.formUnion(rows.rows.compactMap { $0[0].flatMap(Int64.init) })
        }
        return result
    }

    /// Moves the touched rows to their new places (`fresh`: those that still match); nothing
    /// changes when reading a section name fails.
    ///
    /// - Parameter notify: false while a fetch catches up, when there is nothing to tell yet.
    func apply(touched: Set<Int64>, fresh allFresh: [Int64: PostgreSQLRow], _ connection: PostgreSQLConnection, notify: Bool) throws {
        let fresh = keepingLoaded(allFresh)
        let rows = state!.touchedRows(touched, fresh: fresh, key: key(of:)) { Self.changedColumns(records[$0], $1) }
        // No copy of the state is held here: the keys are changed in place, not copied.
        let changes = try state!.apply(rows, flatDifference: changeStyles.contains(.difference)) { id in
            try self.sectionName(ofRow: id, loaded: fresh[id] ?? self.records[id], connection)
        }
        records.apply(touched: touched, fresh: fresh)
        cacheIsStale = true
        if notify, !changes.isEmpty { deliver(changes) }
    }

    /// Refetches everything and reports the difference (after pruned history, a truncation,
    /// an error). Nothing changes when the refetch fails.
    func refetchAndDiff(_ connection: PostgreSQLConnection) throws {
        var fetched = try fetchAll(connection)
        guard let old = state else { return install(fetched) }
        let oldRecords = records
        if fetched.records.isBatching {
            let kept = oldRecords.rows.keys.filter { fetched.state.keys.contains($0) }
            fetched.records.storeBatch(try readRows(kept, matching: false, connection))
        }
        let newRecords = fetched.records
        let changes = ResultsState.difference(from: old, to: fetched.state, flatDifference: changeStyles.contains(.difference)) { rowID, keyChanged in
            if let oldRow = oldRecords[rowID], let newRow = newRecords[rowID] { return Self.changedColumns(oldRow, newRow) }
            // Not loaded before: only a changed key shows that the row changed.
            return keyChanged ? Set(newRecords[rowID]?.columns ?? [fetchRequest.keyColumn]) : []
        }
        install(fetched)
        if !changes.isEmpty { deliver(changes) }
    }

    /// The columns whose values differ; every column when the old row was not loaded.
    static func changedColumns(_ old: PostgreSQLRow?, _ new: PostgreSQLRow) -> Set<String> {
        guard let old, old.columns == new.columns else { return Set(new.columns) }
        return Set(new.columns.indices.filter { old.values[$0] != new.values[$0] }.map { new.columns[$0] })
    }

    func deliver(_ changes: ChangeSetBuilder.Result) {
        guard let delegate, let state else { return }
        if changeStyles.contains(.changes) {
            delegate.controllerWillChangeContent(self)
            for change in changes.sectionChanges { delegate.controller(self, didChange: change) }
            for change in changes.objectChanges { delegate.controller(self, didChange: change) }
            delegate.controllerDidChangeContent(self)
        }
        if changeStyles.contains(.snapshot) {
            delegate.controller(self, didChangeContentWith: state.snapshot(reloaded: changes.reloadedRowIDs))
        }
        if changeStyles.contains(.difference), let difference = CollectionDifference(changes.flatDifference) {
            delegate.controller(self, didChangeContentWith: difference)
        }
    }

    func report(_ error: any Error) {
        delegate?.controller(self, didFailWith: error)
    }

    // MARK: - Connection

    /// The open connection, or a new one (listening when tracking); while reconnecting, an
    /// attempt is made only when the back-off allows.
    func connect() throws -> PostgreSQLConnection {
        let connection = try openConnection()
        if isTracking, !isListening {
            try connection.execute("LISTEN " + PostgreSQLChangeFeed.quoted(PostgreSQLChangeFeed.channel))
            isListening = true
        }
        return connection
    }

    /// The first connection (no results yet) is made at once, as `performFetch()` needs it;
    /// a reconnection is made without blocking, a step per look, so that a program waiting for
    /// an unreachable server stays responsive.
    private func openConnection() throws -> PostgreSQLConnection {
        if let connection { return connection }
        guard state != nil else { return adopt(try PostgreSQLConnection(conninfo, defaults: connectionDefaults)) }
        let made: PostgreSQLConnection?
        do {
            if attempt == nil {
                try reconnection.checkAttemptIsDue()
                attempt = try PostgreSQLConnectionAttempt(conninfo, defaults: connectionDefaults)
            }
            made = try attempt!.advance()
        } catch let error as PostgreSQLError where error != .connectionLost(ReconnectionSchedule.notDue) {
            attempt = nil
            reconnection.failed()
            connectionState = .reconnecting(attempts: reconnection.failures, lastError: "\(error)")
            delegate?.controller(self, didChangeConnectionState: connectionState)
            throw error
        }
        guard let made else { throw PostgreSQLError.connectionLost("still connecting") }
        attempt = nil
        return adopt(made)
    }

    /// Uses a new connection; says so if it ends a reconnection.
    private func adopt(_ connection: PostgreSQLConnection) -> PostgreSQLConnection {
        self.connection = connection
        isListening = false
        let wasReconnecting = connectionState != .connected
        reconnection.succeeded()
        connectionState = .connected
        if wasReconnecting { delegate?.controller(self, didChangeConnectionState: .connected) }
        return connection
    }

    /// The connection broke: keep the results, say so, reconnect later.
    func lose(_ connection: PostgreSQLConnection, _ error: PostgreSQLError) {
        guard self.connection === connection else { return }
        self.connection = nil
        reconnection.lost()
        connectionState = .reconnecting(attempts: 0, lastError: error.description)
        report(error)
        delegate?.controller(self, didChangeConnectionState: connectionState)
    }
}

/// When to try reconnecting: at once after a loss, then after 50 ms, doubling up to 2 s.
struct ReconnectionSchedule {
    private(set) var failures = 0
    private(set) var nextAttempt: ContinuousClock.Instant?

    static let firstDelay = Duration.milliseconds(50)
    static let longestDelay = Duration.seconds(2)

    static let notDue = "waiting before reconnecting"

    /// Throws when the next attempt is not due yet.
    func checkAttemptIsDue() throws {
        if let nextAttempt, ContinuousClock.now < nextAttempt {
            throw PostgreSQLError.connectionLost(Self.notDue)
        }
    }

    mutating func lost() {
        failures = 0
        nextAttempt = nil
    }

    mutating func failed() {
        failures += 1
        let delay = min(Self.firstDelay * (1 << min(failures - 1, 16)), Self.longestDelay)
        nextAttempt = ContinuousClock.now + delay
    }

    mutating func succeeded() {
        failures = 0
        nextAttempt = nil
    }
}

extension Sequence {
    /// The elements in order, without a second one of the same `key`.
    func uniqued<Key: Hashable>(by key: (Element) -> Key) -> [Element] {
        var seen: Set<Key> = []
        return filter { seen.insert(key($0)).inserted }
    }
}
