/// What decides how ordered rows are cut into visible sections, besides the rows themselves.
package struct ResultsShape: Sendable, Equatable {
    /// Ordered rows skipped before the visible window (Core Data's `fetchOffset`).
    package var fetchOffset: Int
    /// The visible window's largest size, 0 for no limit (Core Data's `fetchLimit`).
    package var fetchLimit: Int
    /// Sections by the first sort value; else one section holds every row.
    package var isSectioned: Bool
    /// Whether the first sort key ascends, which says where a key's first component ends.
    package var firstKeyAscending: Bool

    package init(fetchOffset: Int, fetchLimit: Int, isSectioned: Bool, firstKeyAscending: Bool) {
        self.fetchOffset = fetchOffset
        self.fetchLimit = fetchLimit
        self.isSectioned = isSectioned
        self.firstKeyAscending = firstKeyAscending
    }

    /// Whether only part of the ordered rows is visible.
    package var isWindowed: Bool { fetchLimit > 0 || fetchOffset > 0 }

    /// The bytes of a key that encode its first sort value.
    package func firstComponent(of key: [UInt8]) -> ArraySlice<UInt8> {
        key.withUnsafeBufferPointer { key[0..<SortKey.firstComponentLength(of: $0, ascending: firstKeyAscending)] }
    }

    var firstComponentLength: ((UnsafeBufferPointer<UInt8>) -> Int)? {
        guard isSectioned else { return nil }
        let ascending = firstKeyAscending
        return { SortKey.firstComponentLength(of: $0, ascending: ascending) }
    }
}

/// A section's name and the row it was read from (nil when it came from a cache file, which was
/// exact when written).
package struct KnownSectionName: Sendable {
    package var name: String
    package var firstRowID: Int64?

    package init(name: String, firstRowID: Int64?) {
        self.name = name
        self.firstRowID = firstRowID
    }
}

/// The ordered, sectioned results of a controller, whichever store they come from: every
/// matching row's sort key, the visible window cut into named sections, and what one
/// transaction's touched rows do to them. The stores read rows and encode keys; this type
/// places them and says what changed, in table-view terms.
///
/// Invariants (`_checkInvariants()` checks the keys'):
/// - `layout` is the layout of `keys` under `shape`;
/// - every section of `layout` has its name in `sectionNames`, under its identity, with the
///   row it was read from: the section's first row (the name is that row's first sort value).
package struct ResultsState {
    package internal(set) var keys: OrderedKeys
    package private(set) var layout: ResultsLayout
    package private(set) var sectionNames: [[UInt8]: KnownSectionName]
    package let shape: ResultsShape

    /// Cuts `keys` into sections.
    ///
    /// - Parameters:
    ///   - knownNames: names known already (from a cache file, say).
    ///   - recheck: with known names, the rows whose names must be read again even when they
    ///     still start their section; nil reads every name.
    ///   - sectionName: the first sort value of a row, as text, from memory or the store.
    package init(
        keys: OrderedKeys, shape: ResultsShape, knownNames: [[UInt8]: KnownSectionName] = [:],
        recheck: Set<Int64>? = nil,
        sectionName: (Int64) throws -> String
    ) throws {
        var names = knownNames
        self.layout = try Self.layout(of: keys, shape: shape, names: &names, recheck: recheck, sectionName: sectionName)
        self.keys = keys
        self.sectionNames = names
        self.shape = shape
    }

    /// - Parameter appended: the layout of the keys before rows were appended after them, whose
    ///   sections but the last stay as they are (unwindowed results only).
    private static func layout(
        of keys: OrderedKeys, shape: ResultsShape, names: inout [[UInt8]: KnownSectionName], recheck: Set<Int64>?,
        appendingTo appended: ResultsLayout? = nil, sectionName: (Int64) throws -> String
    ) throws -> ResultsLayout {
        func name(_ identity: [UInt8], _ position: Int) throws -> String {
            try Self.name(
                identity, firstRowID: keys.rowID(at: position), names: &names, recheck: recheck,
                sectionName: sectionName)
        }
        if let appended, !shape.isWindowed {
            return try ResultsLayout(
                appendingTo: appended, keys: keys, firstComponentLength: shape.firstComponentLength,
                name: name)
        }
        return try ResultsLayout(
            keys: keys, fetchOffset: shape.fetchOffset, fetchLimit: shape.fetchLimit,
            firstComponentLength: shape.firstComponentLength, name: name)
    }

    /// The name of the section `identity` whose first row is `firstRowID`: the known one unless
    /// that row is to be rechecked or another row started the section when it was read. Notes
    /// the name and its row in `names`.
    private static func name(
        _ identity: [UInt8], firstRowID: Int64, names: inout [[UInt8]: KnownSectionName], recheck: Set<Int64>?,
        sectionName: (Int64) throws -> String
    ) throws -> String {
        if let recheck, let known = names[identity], !recheck.contains(firstRowID),
            known.firstRowID == firstRowID || known.firstRowID == nil
        {
            names[identity] = KnownSectionName(name: known.name, firstRowID: firstRowID)
            return known.name
        }
        let name = try sectionName(firstRowID)
        names[identity] = KnownSectionName(name: name, firstRowID: firstRowID)
        return name
    }

    // MARK: - One transaction

    /// A row a transaction touched, as it is after the commit.
    package struct TouchedRow {
        /// Its new sort key, or nil when it is gone or no longer matches the request.
        package var newKey: [UInt8]?
        /// The columns whose values changed (read when the row was in the results before).
        package var changedColumns: Set<String>

        package init(newKey: [UInt8]?, changedColumns: Set<String>) {
            self.newKey = newKey
            self.changedColumns = changedColumns
        }
    }

    /// The touched rows as ``apply(_:flatDifference:sectionName:)`` takes them, from the rows
    /// read after the transaction (`fresh`: those that still match the request): each one's new
    /// key and, for a row that was already in the results, the columns that changed.
    package func touchedRows<Row>(
        _ touched: Set<Int64>, fresh: [Int64: Row], key: (Row, Int64) -> [UInt8],
        changedColumns: (Int64, Row) -> Set<String>
    ) -> [Int64: TouchedRow] {
        var rows: [Int64: TouchedRow] = [:]
        for id in touched {
            guard let newRow = fresh[id] else {
                rows[id] = TouchedRow(newKey: nil, changedColumns: [])
                continue
            }
            rows[id] = TouchedRow(
                newKey: key(newRow, id), changedColumns: keys.contains(id) ? changedColumns(id, newRow) : [])
        }
        return rows
    }

    /// Places the touched rows by their new keys and returns the change set; rows not touched
    /// did not change, so they keep their order. O(k log n) for k touched rows, plus the
    /// sections when their ranges changed. When naming a section throws, nothing changes.
    ///
    /// - Parameter sectionName: the first sort value of a row after the transaction.
    package mutating func apply(
        _ touched: [Int64: TouchedRow], flatDifference: Bool, sectionName: (Int64) throws -> String
    ) throws -> ChangeSetBuilder.Result {
        let oldLayout = layout
        var candidates = Set(touched.keys)
        if shape.isWindowed { candidates.formUnion(oldLayout.window.map { keys.rowID(at: $0) }) }
        var oldPositions: [Int64: Int] = [:]
        var oldKeys: [Int64: [UInt8]] = [:]
        for id in candidates {
            guard let position = keys.position(of: id) else { continue }
            oldPositions[id] = oldLayout.visiblePosition(position)
            if touched[id] != nil { oldKeys[id] = keys.key(at: position) }
        }

        let windowStartRowID = oldLayout.window.isEmpty ? nil : keys.rowID(at: oldLayout.window.lowerBound)
        var sameLayout = true
        for (id, row) in touched {
            let oldKey = oldKeys[id]
            if let newKey = row.newKey, let oldKey {
                // When no row entered or left and no first sort value changed (a +1 win, say),
                // every section keeps its range.
                if shape.firstComponent(of: oldKey) != shape.firstComponent(of: newKey) { sameLayout = false }
                if newKey == oldKey { continue }
            } else if row.newKey != nil || oldKey != nil {
                sameLayout = false
            }
            if oldKey != nil { keys.remove(rowID: id) }
            if let newKey = row.newKey { keys.insert(rowID: id, key: newKey) }
        }
        // A section is named after its first row: when that row changed or another took its
        // place, the name is read again. The ranges stay: only the names can differ.
        if sameLayout, shape.isSectioned {
            let renamed = sectionsWithOtherFirstRows(
                touched: touched.keys, oldPositions: oldPositions, oldLayout: oldLayout,
                windowStartRowID: windowStartRowID)
            if !renamed.isEmpty {
                do {
                    sameLayout = try rename(renamed, recheck: Set(touched.keys), sectionName: sectionName)
                } catch {
                    restoreKeys(touched, oldKeys: oldKeys)
                    throw error
                }
            }
        } else if !sameLayout {
            var names = sectionNames
            do {
                layout = try Self.layout(
                    of: keys, shape: shape, names: &names, recheck: Set(touched.keys), sectionName: sectionName)
            } catch {
                restoreKeys(touched, oldKeys: oldKeys)
                throw error
            }
            sectionNames = names
        }
        if shape.isWindowed { candidates.formUnion(layout.window.map { keys.rowID(at: $0) }) }

        let placements = candidates.map { id in
            let newPosition = keys.position(of: id).flatMap(layout.visiblePosition)
            let changed = oldKeys[id] != nil && touched[id]?.newKey != nil ? touched[id]!.changedColumns : []
            return CandidatePlacement(
                rowID: id, oldPosition: oldPositions[id], newPosition: newPosition, changedColumns: changed)
        }
        #if DEBUG
            keys._checkInvariants()
        #endif
        return ChangeSetBuilder(
            oldLayout: oldLayout, newLayout: layout, sameLayout: sameLayout, placements: placements
        )
        .build(flatDifference: flatDifference)
    }

    /// The sections of `oldLayout` whose first row may differ now that the touched rows moved
    /// inside their sections: those a touched row started before or starts now.
    private func sectionsWithOtherFirstRows(
        touched: Dictionary<Int64, TouchedRow>.Keys, oldPositions: [Int64: Int], oldLayout: ResultsLayout,
        windowStartRowID: Int64?
    ) -> Set<Int> {
        var renamed: Set<Int> = []
        // A window's first section starts at the window's first row, which a row moving from
        // before the window to after it changes without being in it.
        if shape.isWindowed, !oldLayout.sections.isEmpty, oldLayout.window.lowerBound < keys.count,
            keys.rowID(at: oldLayout.window.lowerBound) != windowStartRowID
        {
            renamed.insert(0)
        }
        for id in touched {
            for position in [oldPositions[id], keys.position(of: id).flatMap(oldLayout.visiblePosition)] {
                guard let position else { continue }
                let section = oldLayout.sectionIndex(ofVisible: position)
                if oldLayout.sections[section].range.lowerBound == position { renamed.insert(section) }
            }
        }
        return renamed
    }

    /// Names the sections at `renamed` again, keeping every range; returns whether each kept
    /// its name. When naming throws, nothing changes.
    mutating func rename(
        _ renamed: Set<Int>, recheck: Set<Int64>, sectionName: (Int64) throws -> String
    ) throws -> Bool {
        var names = sectionNames
        let keys = self.keys
        let renamedLayout = try layout.renaming(sections: renamed) { identity, position in
            try Self.name(
                identity, firstRowID: keys.rowID(at: position), names: &names, recheck: recheck,
                sectionName: sectionName)
        }
        let namesKept = renamed.allSatisfy { renamedLayout.sections[$0].name == layout.sections[$0].name }
        layout = renamedLayout
        sectionNames = names
        return namesKept
    }

    /// Names the section at `index` `name`, read from `firstRowID`, the row that starts it.
    mutating func setName(_ name: String, ofSection index: Int, readFrom firstRowID: Int64) {
        layout.setName(name, ofSection: index)
        sectionNames[layout.sections[index].identity] = KnownSectionName(name: name, firstRowID: firstRowID)
    }

    /// Puts every touched row's key back as it was, so the results stay the last good ones.
    private mutating func restoreKeys(_ touched: [Int64: TouchedRow], oldKeys: [Int64: [UInt8]]) {
        for (id, row) in touched where row.newKey != oldKeys[id] {
            if row.newKey != nil { keys.remove(rowID: id) }
            if let oldKey = oldKeys[id] { keys.insert(rowID: id, key: oldKey) }
        }
    }

    /// Appends rows whose keys all follow every key held — the next rows of a progressive
    /// load — and returns the change set: rows inserted at the end of the last section, and
    /// sections inserted after it. O(k) for k rows, plus the sections. When naming a section
    /// throws, nothing changes.
    ///
    /// - Parameter sectionName: the first sort value of a row.
    package mutating func append(
        _ rows: OrderedKeys.Builder, flatDifference: Bool, sectionName: (Int64) throws -> String
    ) throws -> ChangeSetBuilder.Result {
        // Only the old layout and count: a copy of the whole state would make the append copy
        // every key buffer and the row locator.
        let (oldLayout, oldCount) = (layout, keys.count)
        keys.append(rows)
        var names = sectionNames
        do {
            // Known sections keep their names: only a section that starts among the new rows is named.
            layout = try Self.layout(
                of: keys, shape: shape, names: &names, recheck: [], appendingTo: oldLayout,
                sectionName: sectionName)
        } catch {
            keys.removeLast(keys.count - oldCount)
            throw error
        }
        sectionNames = names
        #if DEBUG
            keys._checkInvariants()
        #endif
        return appendedChanges(after: oldLayout, oldCount: oldCount, flatDifference: flatDifference)
    }

    /// The change set from `old` to these results when they hold `old`'s rows first and others
    /// after them (a progressive load finished at once, from a cache file), or nil when they
    /// do not start with `old`'s rows.
    package func changes(appendedTo old: ResultsState, flatDifference: Bool) -> ChangeSetBuilder.Result? {
        guard old.keys.count <= keys.count,
            (0..<old.keys.count).allSatisfy({
                old.keys.rowID(at: $0) == keys.rowID(at: $0) && old.keys.key(at: $0) == keys.key(at: $0)
            })
        else { return nil }
        return appendedChanges(after: old.layout, oldCount: old.keys.count, flatDifference: flatDifference)
    }

    /// Rows inserted after the first `oldCount`. A table view inserts a new section whole, so
    /// only the rows that join the old last section are placed one by one — unless the flat
    /// difference, which lists every row, is asked for.
    private func appendedChanges(
        after oldLayout: ResultsLayout, oldCount: Int, flatDifference: Bool
    ) -> ChangeSetBuilder.Result {
        var end = keys.count
        if !flatDifference, shape.isSectioned, oldCount > 0, let last = oldLayout.sections.last {
            end = keys.endOfRun(withPrefix: last.identity, in: oldCount..<keys.count)
        }
        if !flatDifference, !shape.isWindowed { return appendedInOrder(after: oldLayout, oldCount: oldCount, end: end) }
        let placements = (oldCount..<end).compactMap { position in
            layout.visiblePosition(position).map {
                CandidatePlacement(
                    rowID: keys.rowID(at: position), oldPosition: nil, newPosition: $0, changedColumns: [])
            }
        }
        return ChangeSetBuilder(oldLayout: oldLayout, newLayout: layout, sameLayout: false, placements: placements)
            .build(flatDifference: flatDifference)
    }

    /// ``appendedChanges(after:oldCount:flatDifference:)`` without a window: what the general
    /// builder would find, made directly in its order — the sections after the old last one
    /// inserted, then the rows `oldCount..<end` inserted at the end of the old last section —
    /// without hashing or sorting a step's thousands of rows.
    private func appendedInOrder(after oldLayout: ResultsLayout, oldCount: Int, end: Int) -> ChangeSetBuilder.Result {
        var result = ChangeSetBuilder.Result()
        let kept = oldLayout.sections.count
        for index in kept..<layout.sections.count {
            result.sectionChanges.append(SectionChange(type: .insert, index: index, name: layout.sections[index].name))
        }
        // Rows of inserted sections get no change of their own; with no section before, every
        // section is new.
        guard kept > 0, oldCount < end else { return result }
        let section = kept - 1, firstRow = oldCount - layout.sections[section].range.lowerBound
        result.objectChanges.reserveCapacity(end - oldCount)
        keys.forEachRowID(in: oldCount..<end) { offset, rowID in
            result.objectChanges.append(.insert(rowID: rowID, at: IndexPath(row: firstRow + offset, section: section)))
        }
        return result
    }

    /// The change set from `old` to `new`, two full fetches (a refetch after missed history,
    /// an error or a reconnect).
    ///
    /// - Parameter changedColumns: for a row visible in both, its changed columns, given
    ///   whether its key changed.
    package static func difference(
        from old: ResultsState, to new: ResultsState, flatDifference: Bool,
        changedColumns: (_ rowID: Int64, _ keyChanged: Bool) throws -> Set<String>
    ) rethrows -> ChangeSetBuilder.Result {
        var oldByID: [Int64: (position: Int, key: [UInt8])] = [:]
        for visible in 0..<old.layout.count {
            let position = old.layout.window.lowerBound + visible
            oldByID[old.keys.rowID(at: position)] = (visible, old.keys.key(at: position))
        }
        var placements: [CandidatePlacement] = []
        for visible in 0..<new.layout.count {
            let position = new.layout.window.lowerBound + visible
            let rowID = new.keys.rowID(at: position)
            let before = oldByID.removeValue(forKey: rowID)
            let changed = try before.map { try changedColumns(rowID, $0.key != new.keys.key(at: position)) } ?? []
            placements.append(
                CandidatePlacement(
                    rowID: rowID, oldPosition: before?.position, newPosition: visible, changedColumns: changed))
        }
        for (rowID, before) in oldByID {
            placements.append(
                CandidatePlacement(rowID: rowID, oldPosition: before.position, newPosition: nil, changedColumns: []))
        }
        return ChangeSetBuilder(oldLayout: old.layout, newLayout: new.layout, sameLayout: false, placements: placements)
            .build(flatDifference: flatDifference)
    }

    // MARK: - Reading

    /// The number of visible rows.
    package var count: Int { layout.count }

    /// The row id at a visible position.
    package func rowID(atVisible position: Int) -> Int64 {
        keys.rowID(at: layout.window.lowerBound + position)
    }

    /// The row id at a valid index path, or nil.
    package func rowID(at indexPath: IndexPath) -> Int64? {
        layout.visiblePosition(of: indexPath).map(rowID(atVisible:))
    }

    /// The index path of a visible row, or nil.
    package func indexPath(forRowID rowID: Int64) -> IndexPath? {
        guard let position = keys.position(of: rowID), let visible = layout.visiblePosition(position) else {
            return nil
        }
        return layout.indexPath(ofVisible: visible)
    }

    /// The row ids of the batch that holds a visible position: `batchSize` rows (at least one)
    /// from a multiple of it, in order — what a batched controller reads at once.
    package func batch(containing position: Int, batchSize: Int) -> [Int64] {
        let size = max(1, batchSize)
        let first = position / size * size
        return (first..<min(first + size, count)).map(rowID(atVisible:))
    }

    /// The visible row ids of a section, in order.
    package func rowIDs(inSection section: Int) -> [Int64] {
        layout.sections[section].range.map(rowID(atVisible:))
    }

    /// Section names and row ids, with the rows to reload.
    package func snapshot(reloaded: Set<Int64>) -> ResultsSnapshot {
        ResultsSnapshot(of: self, reloadedRowIDs: reloaded)
    }

    /// Each section's name and its rows' ids, in order.
    func sectionsAndRowIDs() -> [(name: String, rowIDs: [Int64])] {
        layout.sections.indices.map { (layout.sections[$0].name, rowIDs(inSection: $0)) }
    }

    /// The distinct index titles of the sections, in section order.
    package func sectionIndexTitles(_ title: (String) -> String?) -> [String] {
        var seen: Set<String> = []
        return layout.sections.compactMap { title($0.name) }.filter { seen.insert($0).inserted }
    }

    /// The first section whose index title is `title`, or failing that the section at `index`
    /// (kept in range).
    package func section(forSectionIndexTitle title: String, at index: Int, _ titleOf: (String) -> String?) -> Int {
        layout.sections.firstIndex { titleOf($0.name) == title }
            ?? min(max(0, index), max(0, layout.sections.count - 1))
    }
}
