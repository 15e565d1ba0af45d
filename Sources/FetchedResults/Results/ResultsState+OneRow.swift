extension ResultsState {
    /// ``apply(_:flatDifference:sectionName:)`` for the commonest transaction — one row that was
    /// in the results, still is, and stays in its section (a +1 win) — placed and told without
    /// the general path's sets and dictionaries. Returns nil, having changed nothing, for any
    /// other case: the general path then runs.
    ///
    /// - Parameters:
    ///   - sectionValueMayHaveChanged: false when the transaction left the row's section value
    ///     as it was (its column is not among those changed): a row that starts its section
    ///     before and after then leaves the section's name as it was, and it is not read again.
    ///   - sectionName: the first sort value of a row after the transaction.
    package mutating func applyOneRow(
        _ rowID: Int64, newKey: [UInt8], changedColumns: Set<String>, sectionValueMayHaveChanged: Bool,
        flatDifference: Bool, sectionName: (Int64) throws -> String
    ) throws -> ChangeSetBuilder.Result? {
        guard !shape.isWindowed, let oldPosition = keys.position(of: rowID) else { return nil }
        let oldKey = keys.key(at: oldPosition)
        if shape.isSectioned, shape.firstComponent(of: oldKey) != shape.firstComponent(of: newKey) { return nil }
        // Unwindowed, a visible position is a position, and the layout keeps its sections.
        let oldPath = layout.indexPath(ofVisible: oldPosition)
        var newPosition = oldPosition
        if newKey != oldKey {
            newPosition = keys.move(rowID: rowID, at: oldPosition, to: newKey)
            #if DEBUG
                keys._checkInvariants()
            #endif
        }
        var result = ChangeSetBuilder.Result()
        // A section is named after its first row: when this row started it or starts it now,
        // the name is read again, unless the row starts it before and after with the same value.
        let section = oldPath.section
        let start = layout.sections[section].range.lowerBound
        let startsBeforeAndAfter = oldPosition == start && newPosition == start
        if shape.isSectioned,
            startsBeforeAndAfter ? sectionValueMayHaveChanged : oldPosition == start || newPosition == start
        {
            let oldName = layout.sections[section].name
            do {
                if startsBeforeAndAfter {
                    // Its own value names it: no other section's name or range can change.
                    let name = try sectionName(rowID)
                    if name != oldName { setName(name, ofSection: section, readFrom: rowID) }
                } else {
                    _ = try rename([section], recheck: [rowID], sectionName: sectionName)
                }
            } catch {
                if newKey != oldKey { keys.move(rowID: rowID, at: newPosition, to: oldKey) }
                throw error
            }
            let newName = layout.sections[section].name
            if newName != oldName {
                result.sectionChanges = [SectionChange(type: .update, index: section, name: newName)]
            }
        }
        let newPath = layout.indexPath(ofVisible: newPosition)
        if newPosition != oldPosition {
            result.objectChanges = [.move(rowID: rowID, from: oldPath, to: newPath, changedColumns: changedColumns)]
            if flatDifference {
                result.flatDifference = [
                    .remove(offset: oldPosition, element: rowID, associatedWith: nil),
                    .insert(offset: newPosition, element: rowID, associatedWith: nil),
                ]
            }
        } else if !changedColumns.isEmpty {
            result.objectChanges = [.update(rowID: rowID, from: oldPath, to: newPath, changedColumns: changedColumns)]
        }
        if !changedColumns.isEmpty { result.reloadedRowIDs = [rowID] }
        return result
    }
}
