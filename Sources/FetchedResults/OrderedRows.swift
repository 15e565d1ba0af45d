import GRDB

/// One fetched row: its id, the values it sorts by, and all its columns.
struct FetchedRow {
    let rowID: Int64
    let sortKey: [DatabaseValue]
    let row: Row
}

/// Every row matching the request, kept in the request's total order.
///
/// Invariants (checked by `_checkInvariants()`):
/// - `rows` is strictly increasing under the request's order (row id breaks ties);
/// - `sortKeyByID` holds exactly the ids in `rows`, each with its row's sort key.
///
/// No position is stored per id, so inserting shifts no index: a row is found by binary search
/// on the sort key `sortKeyByID` remembers, in O(log n).
struct OrderedRows {
    let descriptors: [ColumnSortDescriptor]
    private(set) var rows: [FetchedRow] = []
    private(set) var sortKeyByID: [Int64: [DatabaseValue]] = [:]

    init(descriptors: [ColumnSortDescriptor], sortedRows: [FetchedRow]) {
        self.descriptors = descriptors
        rows = sortedRows
        sortKeyByID.reserveCapacity(sortedRows.count)
        for row in sortedRows { sortKeyByID[row.rowID] = row.sortKey }
    }

    var count: Int { rows.count }

    /// The position of the row with this id, or nil when it is not in the results.
    func position(of rowID: Int64) -> Int? {
        guard let key = sortKeyByID[rowID] else { return nil }
        let index = insertionIndex(key: key, rowID: rowID)
        return index < rows.count && rows[index].rowID == rowID ? index : nil
    }

    /// The first position whose row sorts at or after (key, rowID).
    func insertionIndex(key: [DatabaseValue], rowID: Int64) -> Int {
        var (low, high) = (0, rows.count)
        while low < high {
            let middle = (low + high) / 2
            let candidate = rows[middle]
            if SQLiteOrdering.compare(candidate.sortKey, candidate.rowID, key, rowID, descriptors: descriptors) < 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// The first position in `range` whose first sort value differs (under its collation)
    /// from `value`: the end of a section that starts in `range`.
    func endOfGroup(startingAt start: Int, in range: Range<Int>) -> Int {
        let first = rows[start].sortKey[0]
        let descriptor = descriptors[0]
        var (low, high) = (start + 1, range.upperBound)
        while low < high {
            let middle = (low + high) / 2
            if SQLiteOrdering.compare(rows[middle].sortKey[0], first, collation: descriptor.collation) == 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    mutating func remove(_ rowID: Int64) {
        guard let index = position(of: rowID) else { return }
        rows.remove(at: index)
        sortKeyByID[rowID] = nil
    }

    mutating func insert(_ row: FetchedRow) {
        rows.insert(row, at: insertionIndex(key: row.sortKey, rowID: row.rowID))
        sortKeyByID[row.rowID] = row.sortKey
    }

    /// Replaces a row that stays in the results, shifting only the rows between its old and
    /// new places: O(distance + log n) rather than two O(n) array shifts.
    mutating func replace(_ rowID: Int64, with row: FetchedRow) {
        guard let old = position(of: rowID) else { return insert(row) }
        var new = insertionIndex(key: row.sortKey, rowID: row.rowID)
        if new > old { new -= 1 }  // the index counted the old copy of the row
        if new > old {
            for index in old..<new { rows[index] = rows[index + 1] }
        } else if new < old {
            for index in stride(from: old, to: new, by: -1) { rows[index] = rows[index - 1] }
        }
        rows[new] = row
        sortKeyByID[rowID] = row.sortKey
    }

    /// Checks the stated invariants; for tests and debug builds.
    func _checkInvariants() {
        precondition(rows.count == sortKeyByID.count, "every row is indexed once")
        for row in rows {
            precondition(sortKeyByID[row.rowID] == row.sortKey, "each id is indexed with its row's sort key")
        }
        for index in rows.indices.dropFirst() {
            let (a, b) = (rows[index - 1], rows[index])
            precondition(
                SQLiteOrdering.compare(a.sortKey, a.rowID, b.sortKey, b.rowID, descriptors: descriptors) < 0,
                "rows are strictly ordered")
        }
    }
}
