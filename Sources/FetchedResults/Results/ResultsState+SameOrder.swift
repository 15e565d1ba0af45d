extension ResultsState {
    /// ``difference(from:to:flatDifference:changedColumns:)`` for two fetches in the same
    /// order, as when a request's predicate changes (a filter typed) or results are refetched.
    ///
    /// A row visible in both with the same key kept its place among the others, so only the
    /// rows visible on one side, those whose key changed and those whose content changed are
    /// candidates for the change set; both lists are walked in key order to find them. The
    /// general difference hashes and places every row, however few the change shows or hides.
    ///
    /// - Parameters:
    ///   - loaded: rows whose content may have changed without their key changing (those held
    ///     in memory): only these are compared when their key is the same.
    ///   - changedColumns: for a candidate visible in both, its changed columns, given whether
    ///     its key changed.
    package static func sameOrderDifference(
        from old: ResultsState, to new: ResultsState, flatDifference: Bool, loaded: Set<Int64>,
        changedColumns: (_ rowID: Int64, _ keyChanged: Bool) throws -> Set<String>
    ) rethrows -> ChangeSetBuilder.Result {
        var placements: [CandidatePlacement] = []
        // Rows only one side shows at their key: a row in both is one whose key changed.
        var gone: [Int64: Int] = [:]
        var goneInOrder: [Int64] = []
        var came: [(rowID: Int64, position: Int)] = []
        var before = OrderedKeys.Cursor(old.keys, range: old.layout.window)
        var after = OrderedKeys.Cursor(new.keys, range: new.layout.window)
        var (oldPosition, newPosition) = (0, 0)
        while !before.isAtEnd || !after.isAtEnd {
            let order = before.isAtEnd ? 1 : after.isAtEnd ? -1 : SortKey.compare(before.key, after.key)
            if order == 0 {
                let rowID = before.rowID
                if loaded.contains(rowID) {
                    let changed = try changedColumns(rowID, false)
                    if !changed.isEmpty {
                        placements.append(
                            CandidatePlacement(
                                rowID: rowID, oldPosition: oldPosition, newPosition: newPosition,
                                changedColumns: changed))
                    }
                }
                before.advance()
                after.advance()
                oldPosition += 1
                newPosition += 1
            } else if order < 0 {
                gone[before.rowID] = oldPosition
                goneInOrder.append(before.rowID)
                before.advance()
                oldPosition += 1
            } else {
                came.append((after.rowID, newPosition))
                after.advance()
                newPosition += 1
            }
        }
        for (rowID, position) in came {
            let oldPosition = gone.removeValue(forKey: rowID)
            placements.append(
                CandidatePlacement(
                    rowID: rowID, oldPosition: oldPosition, newPosition: position,
                    changedColumns: oldPosition == nil ? [] : try changedColumns(rowID, true)))
        }
        // In the order of the old list, which the change set keeps.
        for rowID in goneInOrder {
            guard let position = gone[rowID] else { continue }
            placements.append(
                CandidatePlacement(rowID: rowID, oldPosition: position, newPosition: nil, changedColumns: []))
        }
        return ChangeSetBuilder(oldLayout: old.layout, newLayout: new.layout, sameLayout: false, placements: placements)
            .build(flatDifference: flatDifference)
    }
}
