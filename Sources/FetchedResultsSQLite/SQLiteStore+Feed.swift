import FetchedResults
import GRDB

extension SQLiteStore {
    // MARK: - The change feed

    /// What was committed since `position`: the commits this database writer's observer noted,
    /// and, with a ``ChangeHistory``, whatever the history names beyond them (nothing to read
    /// when the history this program wrote directly follows the position), then the touched
    /// rows as they are in `db` — unless the fetched table's columns changed (checked before
    /// reading more than one row, and after reading one when its statement was prepared again).
    ///
    /// The noted commits are taken before `db` reads anything, so that every one taken is
    /// visible in the snapshot; one that commits later stays noted for the next look.
    public func changes(since position: SQLitePosition, in db: Database) throws -> FeedRead<Row, SQLitePosition> {
        noteLook()
        // Commits the position already includes (noted while the fetch read them) are left out.
        let noted = pending.take().filter { commit in
            guard let lastSeen = position.sequence, let written = commit.historyWritten else { return true }
            return written.last > lastSeen
        }
        if noted.contains(where: { $0.unknownChanges }) { return .mustRefetch }
        // Closures, not key paths: a key path is made anew at every call, and this runs at every commit.
        var touched: Set<Int64> = noted.count == 1 ? noted[0].rowIDs : Set(noted.flatMap { $0.rowIDs })
        var related: [String: Set<Int64>] = [:]
        for commit in noted where !commit.relatedRowIDs.isEmpty {
            related.merge(commit.relatedRowIDs) { $0.union($1) }
        }
        var newPosition = position
        // Whether the feed is exactly what this writer committed: then the row read before the
        // commit is the row as of the new position.
        var onlyThisWriter = position.sequence == nil
        let written = noted.compactMap { $0.historyWritten }
        if let lastSeen = position.sequence, writerInUse != nil, let last = written.map({ $0.last }).max(),
            Self.history(written, covers: lastSeen + 1...last)
        {
            // Right after a write through the controller: what this writer noted follows the
            // position directly. A commit another process made since leaves its history for the
            // next look, which its write to the WAL file wakes.
            newPosition = SQLitePosition(sequence: last)
            onlyThisWriter = true
        } else if let lastSeen = position.sequence {
            let latest = try ChangeHistory.latestSequence(db)
            // A position past the history's end is another database's (a cache file, say).
            if latest < lastSeen { return .mustRefetch }
            if latest > lastSeen, !Self.history(written, covers: lastSeen + 1...latest) {
                let changes = try ChangeHistory.changes(to: observedTables, after: lastSeen, latest: latest, db)
                // The history not read yet was pruned: only a full comparison is exact.
                if changes.pruned { return .mustRefetch }
                touched.formUnion(changes.rowIDs[request.table.lowercased()] ?? [])
                related.merge(changes.rowIDs) { $0.union($1) }
            }
            newPosition = SQLitePosition(sequence: max(lastSeen, latest))
        }
        if touched.count == 1, related.isEmpty, let rowID = touched.first {
            // The look after a win: the row's read tells whether the schema must be compared.
            var (rows, statement) =
                if onlyThisWriter, let early = readBeforeCommit, early.rowID == rowID {
                    early.read
                } else {
                    try oneRow(rowID, matching: true, in: db)
                }
            if !schemaWitness.sawNoSchemaChange(in: statement) {
                if try schemaChanged(db) { return .mustRefetch }
                // The check made the connection forget a statement from before a schema change
                // (its column names are GRDB's of then): read the row again with a new one.
                if try oneRowStatement(matching: true, in: db) !== statement {
                    (rows, statement) = try oneRow(rowID, matching: true, in: db)
                }
                schemaWitness.remember(statement)
            }
            return .changed(touched: touched, rows: rows, position: newPosition)
        }
        if try schemaChanged(db) { return .mustRefetch }
        touched.formUnion(try rowsReferring(to: related, db))
        guard !touched.isEmpty else { return .changed(touched: [], rows: [:], position: newPosition) }
        return .changed(touched: touched, rows: try rows(Array(touched), matching: true, in: db), position: newPosition)
    }

    /// Whether the history sequence numbers these commits wrote are exactly `range`, none
    /// missing: then no other connection committed in between, and the history need not be read.
    static func history(_ written: [CommitObserver.HistoryWritten], covers range: ClosedRange<Int64>) -> Bool {
        let sorted = written.sorted { $0.first < $1.first }
        var next = range.lowerBound
        for commit in sorted {
            guard commit.first == next, commit.last - commit.first + 1 == commit.count else { return false }
            next = commit.last + 1
        }
        return next == range.upperBound + 1
    }

    /// The fetched table and the tables its relationship key paths lead to, lowercased.
    var observedTables: Set<String> {
        Set([request.table.lowercased()] + relationshipKeyPaths.map { $0.relationship.destinationTable.lowercased() })
    }

    /// The fetched rows whose relationships lead to any of the given related rows: those whose
    /// related values may have changed. Tables no relationship leads to are ignored. One indexed
    /// query per relationship and 500 ids.
    func rowsReferring(to related: [String: Set<Int64>], _ db: Database) throws -> Set<Int64> {
        guard !related.isEmpty else { return [] }
        var result: Set<Int64> = []
        var foreignKeysDone: Set<String> = []
        for keyPath in relationshipKeyPaths {
            let relationship = keyPath.relationship
            guard let ids = related[relationship.destinationTable.lowercased()], !ids.isEmpty,
                foreignKeysDone.insert(relationship.foreignKey.lowercased()).inserted
            else { continue }
            let sortedIDs = ids.sorted()
            for start in stride(from: 0, to: sortedIDs.count, by: Self.parametersPerStatement) {
                let chunk = sortedIDs[start..<min(start + Self.parametersPerStatement, sortedIDs.count)]
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let statement = try db.cachedStatement(
                    sql: "SELECT rowid FROM \(quotedTable)"
                        + " WHERE \(relationship.foreignKey.quotedDatabaseIdentifier) IN (\(placeholders))")
                result.formUnion(try Int64.fetchSet(statement, arguments: StatementArguments(rowIDs: chunk)))
            }
        }
        return result
    }

    // MARK: - The cache

    /// The request's predicate and relationships, a digest of the schema, and the database's
    /// identity.
    ///
    /// - Throws: `FetchedResultsError.changeFeedMissing(table:installation:)` when a table the
    ///   request reads keeps no history: a cache could not be brought up to date, nor trusted.
    public func cacheValidity(in db: Database) throws -> CacheValidity {
        try requireChangeHistory(db)
        // A history made before stores had an identity gets one when it is installed again.
        guard let identity = try ChangeHistory.storeIdentity(db) else {
            throw FetchedResultsError.changeFeedMissing(
                table: request.table, installation: "try ChangeHistory.install(on: \"\(request.table)\", in: db)")
        }
        // Not `PRAGMA schema_version`: it also counts changes that leave the schema as it was
        // (GRDB creates and drops a table whenever it opens a pool).
        var checksum = Checksum()
        let definitions = try String.fetchAll(
            db, sql: "SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
        for definition in definitions {
            var text = definition + "\n"
            text.withUTF8 { checksum.add(UnsafeRawBufferPointer($0)) }
        }
        let relationships = relationshipKeyPaths.map {
            "\($0.keyPath) \($0.relationship.foreignKey) \($0.relationship.destinationTable)"
        }
        let fingerprint = "predicate=\(predicate.sql); arguments=\(predicate.arguments); relationships=\(relationships)"
        return CacheValidity(
            fingerprint: fingerprint, schema: String(checksum.value, radix: 16), storeIdentity: identity)
    }

    public func feedPosition(of position: SQLitePosition) -> String? {
        position.sequence.map(String.init)
    }

    public func position(fromFeedPosition text: String) -> SQLitePosition? {
        Int64(text).map { SQLitePosition(sequence: $0) }
    }
}
