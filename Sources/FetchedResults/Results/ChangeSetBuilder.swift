/// Where one candidate row was before a transaction and is after it.
package struct CandidatePlacement {
    package let rowID: Int64
    /// Visible position before (nil: was not visible).
    package let oldPosition: Int?
    /// Visible position after (nil: is not visible).
    package let newPosition: Int?
    package let changedColumns: Set<String>

    package init(rowID: Int64, oldPosition: Int?, newPosition: Int?, changedColumns: Set<String>) {
        self.rowID = rowID
        self.oldPosition = oldPosition
        self.newPosition = newPosition
        self.changedColumns = changedColumns
    }
}

/// Turns the before/after placement of a transaction's candidate rows into a change set that
/// follows table-view batch-update rules.
///
/// Rows that are not candidates did not change, so they keep their relative order; the builder
/// only has to decide, for each candidate, whether it was inserted, deleted, moved or updated.
/// A candidate present before and after is *not* a move when it stays in the same section
/// between the same non-candidate neighbours (its "gap") and keeps its order relative to the
/// other candidates of that gap (a longest increasing subsequence keeps the most of them still).
/// A row that must move but whose old and new paths are equal is reported as a delete and an
/// insert at that path, because a table view rejects a move to the same path.
package struct ChangeSetBuilder {
    let oldLayout: ResultsLayout
    let newLayout: ResultsLayout
    /// True when the new layout is the old one (no section or range changed).
    let sameLayout: Bool
    let placements: [CandidatePlacement]

    package init(oldLayout: ResultsLayout, newLayout: ResultsLayout, sameLayout: Bool, placements: [CandidatePlacement])
    {
        self.oldLayout = oldLayout
        self.newLayout = newLayout
        self.sameLayout = sameLayout
        self.placements = placements
    }

    /// One transaction's changes, in the order a table view applies them.
    package struct Result {
        package var sectionChanges: [SectionChange] = []
        package var objectChanges: [ObjectChange] = []
        package var flatDifference: [CollectionDifference<Int64>.Change] = []
        package var reloadedRowIDs: Set<Int64> = []

        package var isEmpty: Bool { sectionChanges.isEmpty && objectChanges.isEmpty }

        /// This change set followed by `appended` — the rows and sections a step of a
        /// progressive load added after the last row — as one change set from the state before
        /// this one to the state after both. Appended rows only extend the end, so this change
        /// set's paths in its new state are paths in the final state too; an appended row in a
        /// section this one inserted is covered by that section's insert.
        package func followed(byAppended appended: Result) -> Result {
            let insertedSections = Set(sectionChanges.filter { $0.type == .insert }.map(\.index))
            let appendedRows = appended.objectChanges.filter { change in
                guard case let .insert(_, path) = change else { return true }
                return !insertedSections.contains(path.section)
            }
            // In table-view order: deletes, inserts (the appended ones last, being at the end),
            // moves, updates.
            let movesStart =
                objectChanges.firstIndex { $0.type == .move || $0.type == .update } ?? objectChanges.endIndex
            var result = Result()
            result.sectionChanges = sectionChanges + appended.sectionChanges
            result.objectChanges = Array(objectChanges[..<movesStart]) + appendedRows + objectChanges[movesStart...]
            result.flatDifference = flatDifference + appended.flatDifference
            result.reloadedRowIDs = reloadedRowIDs.union(appended.reloadedRowIDs)
            return result
        }
    }

    /// - Parameter flatDifference: also compute the flat list's changes (for the
    ///   `CollectionDifference` style).
    package func build(flatDifference: Bool) -> Result {
        var result = Result()
        let sections = sameLayout ? .identity : SectionCorrespondence(old: oldLayout, new: newLayout)
        result.sectionChanges = Self.sectionChanges(from: oldLayout, to: newLayout, sections, sameLayout: sameLayout)

        let sectionedMoves = movedRows(sections: sections)
        // Each change with the path it is ordered by: deletes by old path, last first; inserts and
        // moves by new path; updates by old path.
        var deletes: [PathKeyed] = [], inserts: [PathKeyed] = [], moves: [PathKeyed] = [], updates: [PathKeyed] = []

        for placement in placements {
            let old = placement.oldPosition.map { oldLayout.indexPath(ofVisible: $0) }
            let new = placement.newPosition.map { newLayout.indexPath(ofVisible: $0) }
            let oldSectionGone = old.map { sections.newIndex(ofOld: $0.section) == nil } ?? false
            let newSectionFresh = new.map { sections.isInserted(new: $0.section) } ?? false
            let rowID = placement.rowID, changedColumns = placement.changedColumns
            switch (old, new) {
            case (nil, nil):
                break
            case let (old?, nil):
                if !oldSectionGone { deletes.append(PathKeyed(old, .delete(rowID: rowID, at: old))) }
            case let (nil, new?):
                if !newSectionFresh { inserts.append(PathKeyed(new, .insert(rowID: rowID, at: new))) }
            case let (old?, new?):
                if !placement.changedColumns.isEmpty { result.reloadedRowIDs.insert(placement.rowID) }
                // Rows inside an inserted or deleted section get no row operation of their own.
                switch (oldSectionGone, newSectionFresh) {
                case (true, true): break
                case (true, false): inserts.append(PathKeyed(new, .insert(rowID: rowID, at: new)))
                case (false, true): deletes.append(PathKeyed(old, .delete(rowID: rowID, at: old)))
                case (false, false):
                    if sectionedMoves.contains(placement.rowID) && old == new {
                        // Its order changed but inserts and deletes around it left its path as it
                        // was; a table view refuses a move to the same path, so it is replaced.
                        deletes.append(PathKeyed(old, .delete(rowID: rowID, at: old)))
                        inserts.append(PathKeyed(new, .insert(rowID: rowID, at: new)))
                    } else if sectionedMoves.contains(placement.rowID) {
                        moves.append(
                            PathKeyed(new, .move(rowID: rowID, from: old, to: new, changedColumns: changedColumns)))
                    } else if !placement.changedColumns.isEmpty {
                        updates.append(
                            PathKeyed(old, .update(rowID: rowID, from: old, to: new, changedColumns: changedColumns)))
                    }
                }
            }
        }
        let parts = [
            Self.ordered(deletes, decreasing: true), Self.ordered(inserts), Self.ordered(moves), Self.ordered(updates),
        ].filter { !$0.isEmpty }
        // A filter's change is all deletes or all inserts: that list is the change set, not copied again.
        result.objectChanges = parts.count == 1 ? parts[0] : Array(parts.joined())
        if flatDifference { result.flatDifference = flatChanges(moved: movedRows(sections: nil)) }
        return result
    }

    /// The sections deleted and inserted, and the kept ones whose name is spelt otherwise.
    private static func sectionChanges(
        from oldLayout: ResultsLayout, to newLayout: ResultsLayout, _ sections: SectionCorrespondence, sameLayout: Bool
    ) -> [SectionChange] {
        var changes: [SectionChange] = []
        for (index, section) in oldLayout.sections.enumerated() where sections.newIndex(ofOld: index) == nil {
            changes.append(SectionChange(type: .delete, index: index, name: section.name))
        }
        for (index, section) in newLayout.sections.enumerated() where sections.isInserted(new: index) {
            changes.append(SectionChange(type: .insert, index: index, name: section.name))
        }
        // A kept section whose first row now spells its value otherwise ("kappa" → "Kappa").
        if !sameLayout {
            for (index, section) in oldLayout.sections.enumerated() {
                if let newIndex = sections.newIndex(ofOld: index), newLayout.sections[newIndex].name != section.name {
                    changes.append(
                        SectionChange(type: .update, index: newIndex, name: newLayout.sections[newIndex].name))
                }
            }
        }
        return changes
    }

    /// ``build(flatDifference:)`` for a change that only hides rows and shows others, each kept
    /// row keeping its order and content (a filter's change): given as the ids and visible
    /// positions of the rows hidden and of those shown, each in increasing order, instead of
    /// candidates. The changes are made in table-view order as they are read, none ordered or
    /// copied again: a filter's change names up to every row.
    package static func hidingAndShowing(
        from oldLayout: ResultsLayout, to newLayout: ResultsLayout, hidden: [(rowID: Int64, position: Int)],
        shown: [(rowID: Int64, position: Int)], flatDifference: Bool
    ) -> Result {
        var result = Result()
        let sections = SectionCorrespondence(old: oldLayout, new: newLayout)
        result.sectionChanges = sectionChanges(from: oldLayout, to: newLayout, sections, sameLayout: false)
        result.objectChanges.reserveCapacity(hidden.count + shown.count)
        // Deletes last first, then inserts first first; none inside a deleted or inserted section.
        for (rowID, position) in hidden.reversed() {
            let path = oldLayout.indexPath(ofVisible: position)
            if sections.newIndex(ofOld: path.section) != nil {
                result.objectChanges.append(.delete(rowID: rowID, at: path))
            }
        }
        for (rowID, position) in shown {
            let path = newLayout.indexPath(ofVisible: position)
            if !sections.isInserted(new: path.section) { result.objectChanges.append(.insert(rowID: rowID, at: path)) }
        }
        if flatDifference {
            result.flatDifference =
                hidden.map { .remove(offset: $0.position, element: $0.rowID, associatedWith: nil) }
                + shown.map { .insert(offset: $0.position, element: $0.rowID, associatedWith: nil) }
        }
        return result
    }

    /// The changes in the order of their paths, increasing or decreasing. Candidates in path
    /// order (a refetch's walk of both lists) are not sorted again: hundreds of thousands of
    /// them, when a filter hides most rows, would take longer to sort than to find. Paths are
    /// compared as their two numbers: `IndexPath`'s own comparison walks its general storage,
    /// and sorting a look's few changes through it cost more than finding them.
    private static func ordered(_ keyed: consuming [PathKeyed], decreasing: Bool = false) -> [ObjectChange] {
        var keyed = keyed
        if !zip(keyed, keyed.dropFirst()).allSatisfy({ $0.precedes($1) }) { keyed.sort { $0.precedes($1) } }
        return decreasing ? keyed.reversed().map(\.change) : keyed.map(\.change)
    }

    /// A change with its path's two numbers, for sorting.
    private struct PathKeyed {
        let section: Int
        let row: Int
        let change: ObjectChange

        init(_ path: IndexPath, _ change: ObjectChange) {
            (section, row, self.change) = (path.section, path.row, change)
        }

        func precedes(_ other: PathKeyed) -> Bool {
            section != other.section ? section < other.section : row < other.row
        }
    }

    /// Candidates present before and after that must move: those whose section or gap changed,
    /// plus, within each (section, gap), those outside a longest run that kept its order.
    /// With `sections` nil, the flat list is considered (for the `CollectionDifference`).
    private func movedRows(sections: SectionCorrespondence?) -> Set<Int64> {
        // One candidate (most commits touch one row) has a gap of its own: it moved when its
        // section or position changed.
        if placements.count == 1, let oldPosition = placements[0].oldPosition,
            let newPosition = placements[0].newPosition
        {
            let sameSection =
                sections.map {
                    $0.newIndex(ofOld: oldLayout.sectionIndex(ofVisible: oldPosition))
                        == newLayout.sectionIndex(ofVisible: newPosition)
                } ?? true
            return sameSection && oldPosition == newPosition ? [] : [placements[0].rowID]
        }
        // Only rows on both sides can move (a filter's change hides or shows rows, no more).
        guard placements.contains(where: { $0.oldPosition != nil && $0.newPosition != nil }) else { return [] }
        let oldGaps = gaps(positions: placements.compactMap { $0.oldPosition })
        let newGaps = gaps(positions: placements.compactMap { $0.newPosition })
        var moved: Set<Int64> = []
        struct GroupKey: Hashable { let section: Int; let gap: Int }
        var groups: [GroupKey: [(old: Int, new: Int, rowID: Int64)]] = [:]
        for placement in placements {
            guard let oldPosition = placement.oldPosition, let newPosition = placement.newPosition else { continue }
            let newSection = sections == nil ? 0 : newLayout.sectionIndex(ofVisible: newPosition)
            let sameSection =
                sections.map { $0.newIndex(ofOld: oldLayout.sectionIndex(ofVisible: oldPosition)) == newSection }
                ?? true
            let (oldGap, newGap) = (oldGaps[oldPosition]!, newGaps[newPosition]!)
            if !sameSection || oldGap != newGap {
                moved.insert(placement.rowID)
            } else {
                groups[GroupKey(section: newSection, gap: oldGap), default: []].append(
                    (oldPosition, newPosition, placement.rowID))
            }
        }
        for members in groups.values where members.count > 1 {
            let byOldOrder = members.sorted { $0.old < $1.old }
            let keep = Self.longestIncreasingSubsequence(byOldOrder.map { $0.new })
            for (index, member) in byOldOrder.enumerated() where !keep.contains(index) {
                moved.insert(member.rowID)
            }
        }
        return moved
    }

    /// For each candidate position, how many non-candidate rows precede it.
    private func gaps(positions: [Int]) -> [Int: Int] {
        var result: [Int: Int] = [:]
        for (rank, position) in positions.sorted().enumerated() {
            result[position] = position - rank
        }
        return result
    }

    /// The flat list's removals (old offsets) and insertions (new offsets).
    private func flatChanges(moved: Set<Int64>) -> [CollectionDifference<Int64>.Change] {
        var changes: [CollectionDifference<Int64>.Change] = []
        for placement in placements {
            let isMove = moved.contains(placement.rowID)
            if let old = placement.oldPosition, placement.newPosition == nil || isMove {
                changes.append(.remove(offset: old, element: placement.rowID, associatedWith: nil))
            }
            if let new = placement.newPosition, placement.oldPosition == nil || isMove {
                changes.append(.insert(offset: new, element: placement.rowID, associatedWith: nil))
            }
        }
        return changes
    }

    /// Indices (into `values`) of one longest strictly increasing subsequence. O(m log m).
    package static func longestIncreasingSubsequence(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []  // indices into values
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var (low, high) = (0, tails.count)
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var result: Set<Int> = []
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            result.insert(cursor)
            cursor = previous[cursor]
        }
        return result
    }
}

/// Which old section became which new one. Sections are matched by identity (their first sort
/// value under its collation); when both layouts have the same sections, as after most
/// transactions, no identity is hashed at all.
struct SectionCorrespondence {
    private let oldToNew: [Int?]?
    private let inserted: Set<Int>

    /// Every section kept its index.
    static let identity = SectionCorrespondence(oldToNew: nil, inserted: [])

    private init(oldToNew: [Int?]?, inserted: Set<Int>) {
        self.oldToNew = oldToNew
        self.inserted = inserted
    }

    init(old: ResultsLayout, new: ResultsLayout) {
        let identical =
            old.sections.count == new.sections.count
            && zip(old.sections, new.sections).allSatisfy { $0.identity == $1.identity }
        if identical {
            oldToNew = nil
            inserted = []
            return
        }
        var newIndexByIdentity: [[UInt8]: Int] = [:]
        for (index, section) in new.sections.enumerated() { newIndexByIdentity[section.identity] = index }
        let mapping = old.sections.map { newIndexByIdentity[$0.identity] }
        oldToNew = mapping
        inserted = Set(new.sections.indices).subtracting(mapping.compactMap { $0 })
    }

    /// The new index of an old section, or nil when it was deleted.
    func newIndex(ofOld index: Int) -> Int? { oldToNew.map { $0[index] } ?? index }

    func isInserted(new index: Int) -> Bool { inserted.contains(index) }
}
