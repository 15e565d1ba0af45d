import Foundation
import FetchedResults
import GRDB

extension FetchedResultsController {
    // MARK: - Changes from other connections and processes

    /// Applies what other connections and processes committed since the last look, and tells
    /// the delegate; returns whether anything was committed. Cheap when nothing was (one
    /// indexed query), so an app can call it on an idle tick.
    ///
    /// Needs a store with ``ChangeHistory`` installed on the fetched table; without it, changes
    /// made elsewhere are not seen (but for a schema change, or a refetch an earlier error
    /// asked for).
    ///
    /// - Throws: the database error that stopped it, which the delegate has heard too; the
    ///   results stay as they were, and the next call tries again.
    @discardableResult
    public func processExternalChanges() throws -> Bool {
        guard isTracking, keys != nil else { return false }
        #if DEBUG
        exclusiveAccess.enter()
        defer { exclusiveAccess.leave() }
        #endif
        do {
            return try database.read { db in
                if try self.needsRefetch || self.schemaChanged(db) {
                    try self.refetchAndDiff(db)
                    return true
                }
                guard let lastSeen = self.lastSeenSequence, try ChangeHistory.latestSequence(db) > lastSeen else { return false }
                try self.syncFromHistory(touched: [], db: db)
                return true
            }
        } catch {
            fail(with: error)
            throw error
        }
    }

    /// After a local commit: the rows it touched, plus whatever the history names beyond them
    /// (nothing, when the history this commit wrote directly follows what was last seen).
    func applyCommitted(_ committed: CommitObserver.Touched, db: Database) {
        streams.removeAll { $0.isTerminated }
        // Neither a delegate nor a sequence is left: ignore commits until the next fetch.
        guard isTracking else { return }
        #if DEBUG
        exclusiveAccess.enter()
        defer { exclusiveAccess.leave() }
        #endif
        do {
            if try committed.isEmpty && !needsRefetch && db.schemaVersion() == schemaSeen?.version {
                return
            }
            if try needsRefetch || committed.unknownChanges || schemaChanged(db) {
                try refetchAndDiff(db)
            } else if let lastSeen = lastSeenSequence, let written = committed.historyWritten, written.directlyFollows(lastSeen) {
                try applyTouched(committed.rowIDs, related: committed.relatedRowIDs, db: db)
                lastSeenSequence = written.last
            } else if lastSeenSequence == nil {
                try applyTouched(committed.rowIDs, related: committed.relatedRowIDs, db: db)
            } else {
                try syncFromHistory(touched: committed.rowIDs, related: committed.relatedRowIDs, db: db)
            }
        } catch {
            fail(with: error)
        }
    }

    /// The results fell behind the store: keep the last good ones, refetch at the next look,
    /// and say why.
    func fail(with error: any Error) {
        needsRefetch = true
        report(error)
    }

    func syncFromHistory(touched: Set<Int64>, related: [String: Set<Int64>] = [:], db: Database) throws {
        guard let lastSeen = lastSeenSequence else { return }
        let changes = try ChangeHistory.changes(to: observedTables, after: lastSeen, db)
        if changes.pruned {
            // The history we had not read yet was pruned: only a full comparison is exact.
            try refetchAndDiff(db)
        } else {
            let rowIDs = touched.union(changes.rowIDs[fetchRequest.table.lowercased()] ?? [])
            try applyTouched(rowIDs, related: related.merging(changes.rowIDs) { $0.union($1) }, db: db)
        }
        lastSeenSequence = max(lastSeen, changes.latest)
    }

    /// Applies a transaction's touched rows and the fetched rows that refer to its touched
    /// related rows.
    private func applyTouched(_ rowIDs: Set<Int64>, related: [String: Set<Int64>], db: Database) throws {
        try apply(touched: rowIDs.union(try rowsReferring(to: related, db)), db: db)
    }

    // MARK: - Relationships

    /// The fetched table and the tables its relationship key paths lead to, lowercased.
    var observedTables: Set<String> {
        Set([fetchRequest.table.lowercased()] + relationshipKeyPaths.map { $0.relationship.destinationTable.lowercased() })
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
                  foreignKeysDone.insert(relationship.foreignKey.lowercased()).inserted else { continue }
            let sortedIDs = ids.sorted()
            for start in stride(from: 0, to: sortedIDs.count, by: 500) {
                let chunk = sortedIDs[start..<min(start + 500, sortedIDs.count)]
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let statement = try db.cachedStatement(
                    sql: "SELECT rowid FROM \(quotedTable) WHERE \(relationship.foreignKey.quotedDatabaseIdentifier) IN (\(placeholders))")
                result.formUnion(try Int64.fetchSet(statement, arguments: StatementArguments(rowIDs: chunk)))
            }
        }
        return result
    }

    // MARK: - Applying a committed transaction

    /// Re-reads the touched rows and moves them to their new places; nothing changes when a
    /// read fails.
    ///
    /// - Parameter notify: false while a fetch catches up, when there is nothing to tell yet.
    func apply(touched: Set<Int64>, db: Database, notify: Bool = true) throws {
        // No copy of the state is held here: the keys are changed in place, not copied.
        guard state != nil else { return }
        let fresh = keepingLoaded(try readRows(touched, db: db, predicate: true))
        let rows = state!.touchedRows(touched, fresh: fresh, key: key(of:)) { Self.changedColumns(records[$0], $1) }
        let changes = try state!.apply(rows, flatDifference: wantsFlatDifference) { id in
            try self.sectionName(ofRow: id, loaded: fresh[id] ?? self.records[id], db)
        }
        records.apply(touched: touched, fresh: fresh)
        cacheIsStale = true
        guard notify, !changes.isEmpty else { return }
        deliver(changes, db: db)
    }

    /// Refetches everything and reports the difference: after pruned history, an unknown
    /// change (`notifyChanges(in:)`), a schema change, or an error. Nothing changes when the
    /// refetch fails.
    func refetchAndDiff(_ db: Database) throws {
        var fetched = try fetchAll(db)
        guard let old = state else {
            install(fetched)
            needsRefetch = false
            return
        }
        let oldRecords = records
        // Keep the rows that were loaded, read afresh, so their changes can be told apart.
        if fetched.records.isBatching {
            let kept = oldRecords.rows.keys.filter { fetched.state.keys.contains($0) }
            fetched.records.storeBatch(try readRows(kept, db: db, predicate: false))
        }
        let newRecords = fetched.records
        let changes = try ResultsState.difference(from: old, to: fetched.state, flatDifference: wantsFlatDifference) { rowID, keyChanged in
            if let oldRow = oldRecords[rowID], let newRow = newRecords[rowID] { return Self.changedColumns(oldRow, newRow) }
            // Not loaded before: only a changed key shows that the row changed.
            return keyChanged ? Set(try currentSchema(db).columns) : []
        }
        install(fetched)
        needsRefetch = false
        if !changes.isEmpty { deliver(changes, db: db) }
    }

    /// The names of the table columns whose values differ (the trailing row id excluded).
    ///
    /// When the old row was not loaded (batching), its values are unknown; since the row was
    /// written, every column is reported.
    static func changedColumns(_ old: Row?, _ new: Row) -> Set<String> {
        let names = Array(new.columnNames.dropLast())
        guard let old else { return Set(names) }
        var changed: Set<String> = []
        for index in names.indices where old[index] as DatabaseValue != new[index] as DatabaseValue {
            changed.insert(names[index])
        }
        return changed
    }

    private var wantsFlatDifference: Bool { changeStyles.contains(.difference) }

    func deliver(_ changes: ChangeSetBuilder.Result, db: Database) {
        guard let state else { return }
        databaseInCallback = db
        defer { databaseInCallback = nil }
        let snapshot = changeStyles.contains(.snapshot) || !streams.isEmpty ? state.snapshot(reloaded: changes.reloadedRowIDs) : nil
        if let delegate {
            if changeStyles.contains(.changes) {
                delegate.controllerWillChangeContent(self)
                for change in changes.sectionChanges { delegate.controller(self, didChange: change) }
                for change in changes.objectChanges { delegate.controller(self, didChange: change) }
                delegate.controllerDidChangeContent(self)
            }
            if changeStyles.contains(.snapshot), let snapshot {
                delegate.controller(self, didChangeContentWith: snapshot)
            }
            if changeStyles.contains(.difference), let difference = CollectionDifference(changes.flatDifference) {
                delegate.controller(self, didChangeContentWith: difference)
            }
        }
        if let snapshot { yieldToStreams(snapshot) }
    }

    /// Tells the delegate and the change sequences of an error.
    func report(_ error: any Error) {
        delegate?.controller(self, didFailWith: error)
        failStreams(error)
    }
}
