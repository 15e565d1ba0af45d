import GRDB

/// Where one candidate row was before a transaction and is after it.
struct CandidatePlacement {
    let rowID: Int64
    /// Visible position before (nil: was not visible).
    let oldPosition: Int?
    /// Visible position after (nil: is not visible).
    let newPosition: Int?
    let changedColumns: Set<String>
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
struct ChangeSetBuilder {
    let oldLayout: ResultsLayout
    let newLayout: ResultsLayout
    let placements: [CandidatePlacement]

    struct Result {
        var sectionChanges: [SectionChange] = []
        var objectChanges: [ObjectChange] = []
        var flatDifference: [CollectionDifference<Int64>.Change] = []
        var reloadedRowIDs: Set<Int64> = []

        var isEmpty: Bool { sectionChanges.isEmpty && objectChanges.isEmpty }
    }

    func build() -> Result {
        var result = Result()
        let oldIdentities = oldLayout.sections.map(\.identity)
        let newIdentities = newLayout.sections.map(\.identity)
        let deletedSections = Set(oldIdentities).subtracting(newIdentities)
        let insertedSections = Set(newIdentities).subtracting(oldIdentities)
        for (index, section) in oldLayout.sections.enumerated() where deletedSections.contains(section.identity) {
            result.sectionChanges.append(SectionChange(type: .delete, index: index, name: section.name))
        }
        for (index, section) in newLayout.sections.enumerated() where insertedSections.contains(section.identity) {
            result.sectionChanges.append(SectionChange(type: .insert, index: index, name: section.name))
        }

        let sectionedMoves = movedRows(sectioned: true)
        let flatMoves = movedRows(sectioned: false)
        var deletes: [ObjectChange] = [], inserts: [ObjectChange] = [], moves: [ObjectChange] = [], updates: [ObjectChange] = []

        for placement in placements {
            let old = placement.oldPosition.map { oldLayout.indexPath(ofVisible: $0) }
            let new = placement.newPosition.map { newLayout.indexPath(ofVisible: $0) }
            let oldSectionGone = old.map { deletedSections.contains(oldLayout.sections[$0.section].identity) } ?? false
            let newSectionFresh = new.map { insertedSections.contains(newLayout.sections[$0.section].identity) } ?? false
            let change = { (type: ChangeType, from: IndexPath?, to: IndexPath?) in
                ObjectChange(type: type, rowID: placement.rowID, indexPath: from, newIndexPath: to,
                             changedColumns: type == .insert || type == .delete ? [] : placement.changedColumns)
            }
            switch (old, new) {
            case (nil, nil):
                break
            case let (old?, nil):
                if !oldSectionGone { deletes.append(change(.delete, old, nil)) }
            case let (nil, new?):
                if !newSectionFresh { inserts.append(change(.insert, nil, new)) }
            case let (old?, new?):
                if !placement.changedColumns.isEmpty { result.reloadedRowIDs.insert(placement.rowID) }
                // Rows inside an inserted or deleted section get no row operation of their own.
                switch (oldSectionGone, newSectionFresh) {
                case (true, true): break
                case (true, false): inserts.append(change(.insert, nil, new))
                case (false, true): deletes.append(change(.delete, old, nil))
                case (false, false):
                    if sectionedMoves.contains(placement.rowID) && old == new {
                        // Its order changed but inserts and deletes around it left its path as it
                        // was; a table view refuses a move to the same path, so it is replaced.
                        deletes.append(change(.delete, old, nil))
                        inserts.append(change(.insert, nil, new))
                    } else if sectionedMoves.contains(placement.rowID) {
                        moves.append(change(.move, old, new))
                    } else if !placement.changedColumns.isEmpty {
                        updates.append(change(.update, old, new))
                    }
                }
            }
        }
        result.objectChanges = deletes.sorted { $0.indexPath! > $1.indexPath! }
            + inserts.sorted { $0.newIndexPath! < $1.newIndexPath! }
            + moves.sorted { $0.newIndexPath! < $1.newIndexPath! }
            + updates.sorted { $0.indexPath! < $1.indexPath! }
        result.flatDifference = flatChanges(moved: flatMoves)
        return result
    }

    /// Candidates present before and after that must move: those whose section or gap changed,
    /// plus, within each (section, gap), those outside a longest run that kept its order.
    private func movedRows(sectioned: Bool) -> Set<Int64> {
        let stayers = placements.filter { $0.oldPosition != nil && $0.newPosition != nil }
        let oldGaps = gaps(positions: placements.compactMap(\.oldPosition))
        let newGaps = gaps(positions: placements.compactMap(\.newPosition))
        var moved: Set<Int64> = []
        struct GroupKey: Hashable { let section: DatabaseValue; let gap: Int }
        var groups: [GroupKey: [(old: Int, new: Int, rowID: Int64)]] = [:]
        for placement in stayers {
            let (oldPosition, newPosition) = (placement.oldPosition!, placement.newPosition!)
            let oldSection = sectioned ? oldLayout.sections[oldLayout.sectionIndex(ofVisible: oldPosition)].identity : .null
            let newSection = sectioned ? newLayout.sections[newLayout.sectionIndex(ofVisible: newPosition)].identity : .null
            let (oldGap, newGap) = (oldGaps[oldPosition]!, newGaps[newPosition]!)
            if oldSection != newSection || oldGap != newGap {
                moved.insert(placement.rowID)
            } else {
                groups[GroupKey(section: oldSection, gap: oldGap), default: []]
                    .append((oldPosition, newPosition, placement.rowID))
            }
        }
        for members in groups.values where members.count > 1 {
            let byOldOrder = members.sorted { $0.old < $1.old }
            let keep = Self.longestIncreasingSubsequence(byOldOrder.map(\.new))
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
    static func longestIncreasingSubsequence(_ values: [Int]) -> Set<Int> {
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
