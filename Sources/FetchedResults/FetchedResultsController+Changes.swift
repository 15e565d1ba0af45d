import GRDB

extension FetchedResultsController {
    // MARK: - Changes from other connections and processes

    /// Applies what other connections and processes committed since the last look, and tells
    /// the delegate; returns whether anything was committed. Cheap when nothing was (one
    /// indexed query), so an app can call it on an idle tick.
    ///
    /// Needs a store with ``ChangeHistory`` installed on the fetched table; without it, changes
    /// made elsewhere are not seen and this returns false.
    @discardableResult
    public func processExternalChanges() throws -> Bool {
        guard delegate != nil, let lastSeen = lastSeenSequence, keys != nil else { return false }
        return try database.read { db in
            guard try ChangeHistory.latestSequence(db) > lastSeen else { return false }
            self.syncFromHistory(touched: [], db: db)
            return true
        }
    }

    /// After a local commit: the rows it touched, plus whatever the history names beyond them
    /// (nothing, when the history this commit wrote directly follows what was last seen).
    func applyCommitted(_ committed: CommitObserver.Touched, db: Database) {
        if let lastSeen = lastSeenSequence, let written = committed.historyWritten, written.directlyFollows(lastSeen) {
            applyTouched(committed.rowIDs, related: committed.relatedRowIDs, db: db)
            lastSeenSequence = written.last
        } else if lastSeenSequence == nil {
            applyTouched(committed.rowIDs, related: committed.relatedRowIDs, db: db)
        } else {
            syncFromHistory(touched: committed.rowIDs, related: committed.relatedRowIDs, db: db)
        }
    }

    func syncFromHistory(touched: Set<Int64>, related: [String: Set<Int64>] = [:], db: Database) {
        guard let lastSeen = lastSeenSequence else { return }
        do {
            let changes = try ChangeHistory.changes(to: observedTables, after: lastSeen, db)
            if changes.pruned {
                // The history we had not read yet was pruned: only a full comparison is exact.
                try refetchAndDiff(db)
            } else {
                let rowIDs = touched.union(changes.rowIDs[fetchRequest.table.lowercased()] ?? [])
                applyTouched(rowIDs, related: related.merging(changes.rowIDs) { $0.union($1) }, db: db)
            }
            lastSeenSequence = max(lastSeen, changes.latest)
        } catch {
            try? refetchAndDiff(db)
        }
    }

    /// Applies a transaction's touched rows and the fetched rows that refer to its touched
    /// related rows.
    private func applyTouched(_ rowIDs: Set<Int64>, related: [String: Set<Int64>], db: Database) {
        do {
            apply(touched: rowIDs.union(try rowsReferring(to: related, db)), db: db)
        } catch {
            try? refetchAndDiff(db)
        }
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
                result.formUnion(try Int64.fetchSet(statement, arguments: StatementArguments(chunk.map(\.databaseValue))))
            }
        }
        return result
    }

    // MARK: - Applying a committed transaction

    /// - Parameter notify: false while a fetch catches up, when there is nothing to tell yet.
    func apply(touched: Set<Int64>, db: Database, notify: Bool = true) {
        guard var keys, let oldLayout = layout else { return }
        // Take the only reference, so that mutating does not copy the chunks (copy-on-write).
        self.keys = nil
        let windowed = fetchRequest.fetchLimit > 0 || fetchRequest.fetchOffset > 0
        let fresh: [Int64: Row]
        do {
            fresh = try readRows(touched, db: db, predicate: true)
        } catch {
            // The rows could not be read back (the table was dropped, say): start over.
            try? fetchAll(db)
            return
        }
        cacheIsStale = true

        var candidates = touched
        if windowed { candidates.formUnion(oldLayout.window.map { keys.rowID(at: $0) }) }
        var oldPositions: [Int64: Int] = [:]
        var oldKeys: [Int64: [UInt8]] = [:]
        for id in candidates {
            guard let position = keys.position(of: id) else { continue }
            oldPositions[id] = oldLayout.visiblePosition(position)
            if touched.contains(id) { oldKeys[id] = keys.key(at: position) }
        }

        var newKeys: [Int64: [UInt8]] = [:]
        var sectionsUnchanged = true
        var changedColumns: [Int64: Set<String>] = [:]
        for id in touched {
            let newRow = fresh[id]
            let newKey = newRow.map(key(of:))
            newKeys[id] = newKey
            if let newKey, let oldKey = oldKeys[id] {
                changedColumns[id] = Self.changedColumns(records[id], newRow!)
                // When no row entered or left and no first sort value changed (a +1 win, say),
                // every section keeps its range, and the old layout is still exact.
                if firstComponent(oldKey) != firstComponent(newKey) { sectionsUnchanged = false }
                if newKey == oldKey { continue }
            } else if newKey != nil || oldKeys[id] != nil {
                sectionsUnchanged = false
            }
            if oldKeys[id] != nil { keys.remove(rowID: id) }
            if let newKey { keys.insert(rowID: id, key: newKey) }
        }
        for id in touched {
            if let row = fresh[id] { records.update(id, with: row) } else { records.remove(id) }
        }
        self.keys = keys
        let newLayout = sectionsUnchanged ? oldLayout : makeLayout(db)
        self.layout = newLayout
        if windowed { candidates.formUnion(newLayout.window.map { keys.rowID(at: $0) }) }

        let placements = candidates.map { id in
            CandidatePlacement(
                rowID: id,
                oldPosition: oldPositions[id],
                newPosition: keys.position(of: id).flatMap(newLayout.visiblePosition),
                changedColumns: changedColumns[id] ?? [])
        }
        #if DEBUG
        keys._checkInvariants()
        #endif

        let changes = ChangeSetBuilder(
            oldLayout: oldLayout, newLayout: newLayout, sameLayout: sectionsUnchanged, placements: placements)
            .build(flatDifference: changeStyles.contains(.difference))
        guard notify, !changes.isEmpty, let delegate else { return }
        deliver(changes, to: delegate, db: db)
    }

    private func firstComponent(_ key: [UInt8]) -> ArraySlice<UInt8> {
        key.withUnsafeBufferPointer { key[0..<encoding.firstComponentLength(of: $0)] }
    }

    /// Refetches everything and reports the difference: the fallback when history is missing.
    func refetchAndDiff(_ db: Database) throws {
        guard let oldKeys = keys, let oldLayout = layout else { return try fetchAll(db) }
        let oldRecords = records
        try fetchAll(db)
        guard let newKeys = keys, let newLayout = layout, let delegate else { return }
        // Keep the rows that were loaded, read afresh, so their changes can be told apart.
        if records.isBatching {
            let kept = oldRecords.rows.keys.filter { newKeys.contains($0) }
            records.storeBatch(try readRows(kept, db: db, predicate: false))
        }
        var oldByID: [Int64: (position: Int, key: [UInt8])] = [:]
        for visible in 0..<oldLayout.count {
            let position = oldLayout.window.lowerBound + visible
            oldByID[oldKeys.rowID(at: position)] = (visible, oldKeys.key(at: position))
        }
        var placements: [CandidatePlacement] = []
        for visible in 0..<newLayout.count {
            let position = newLayout.window.lowerBound + visible
            let rowID = newKeys.rowID(at: position)
            let old = oldByID.removeValue(forKey: rowID)
            var changed: Set<String> = []
            if old != nil, let oldRow = oldRecords[rowID], let newRow = records[rowID] {
                changed = Self.changedColumns(oldRow, newRow)
            } else if let old, old.key != newKeys.key(at: position) {
                // Not loaded before: only a changed key shows that the row changed.
                changed = Set(try tableColumns(db))
            }
            placements.append(CandidatePlacement(rowID: rowID, oldPosition: old?.position, newPosition: visible, changedColumns: changed))
        }
        for (rowID, old) in oldByID {
            placements.append(CandidatePlacement(rowID: rowID, oldPosition: old.position, newPosition: nil, changedColumns: []))
        }
        let changes = ChangeSetBuilder(oldLayout: oldLayout, newLayout: newLayout, sameLayout: false, placements: placements)
            .build(flatDifference: changeStyles.contains(.difference))
        if !changes.isEmpty { deliver(changes, to: delegate, db: db) }
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

    private func tableColumns(_ db: Database) throws -> [String] {
        try db.columns(in: fetchRequest.table).map(\.name) + relationshipKeyPaths.map(\.keyPath)
    }

    private func deliver(_ changes: ChangeSetBuilder.Result, to delegate: any FetchedResultsControllerDelegate, db: Database) {
        guard let keys, let layout else { return }
        databaseInCallback = db
        defer { databaseInCallback = nil }
        if changeStyles.contains(.changes) {
            delegate.controllerWillChangeContent(self)
            for change in changes.sectionChanges { delegate.controller(self, didChange: change) }
            for change in changes.objectChanges { delegate.controller(self, didChange: change) }
            delegate.controllerDidChangeContent(self)
        }
        if changeStyles.contains(.snapshot) {
            let snapshot = ResultsSnapshot(
                sections: layout.sections.map { section in
                    (section.name, section.range.map { keys.rowID(at: layout.window.lowerBound + $0) })
                },
                reloadedRowIDs: changes.reloadedRowIDs)
            delegate.controller(self, didChangeContentWith: snapshot)
        }
        if changeStyles.contains(.difference), let difference = CollectionDifference(changes.flatDifference) {
            delegate.controller(self, didChangeContentWith: difference)
        }
    }
}
