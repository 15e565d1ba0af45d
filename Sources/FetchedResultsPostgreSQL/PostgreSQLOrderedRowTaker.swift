import FetchedResults

/// Turns the rows of an ordered read, as the server sends them, into an `OrderedRead`: each
/// row's id and sort key, the section names where the first sort value changes, and the row
/// the read stops at when it reaches its limit.
struct OrderedRowTaker {
    let query: PostgreSQLQuery
    let limit: Int?
    private(set) var read = OrderedRead<PostgreSQLRow, [String?]>()
    /// False once a row's key did not follow the key before it (or the boundary's): a read whose
    /// order the SQL alone does not guarantee checks it (see ``checkingOrder``).
    private(set) var isInOrder = true
    /// Whether ``isInOrder`` is checked, which costs a comparison per row.
    var checkingOrder = false
    private let batching: Bool
    private let ascending: Bool
    private let sectioned: Bool
    private var key: [UInt8] = []
    /// The key before this row's, while the order is checked.
    private var previousKey: [UInt8]
    private var previousFirst: [UInt8]?
    private var reader: RowReader?

    init(query: PostgreSQLQuery, limit: Int?, after boundary: LoadBoundary<[String?]>?, sectioned: Bool) {
        self.query = query
        self.limit = limit
        self.sectioned = sectioned
        batching = query.request.fetchBatchSize > 0
        let ascending = query.request.sortDescriptors.first?.ascending ?? true
        self.ascending = ascending
        previousFirst = boundary.map { SortKey.firstComponent(of: $0.key, ascending: ascending) }
        previousKey = boundary?.key ?? []
    }

    /// Takes the next row; a row `isHeld` says the results hold already is counted, not added.
    mutating func take(_ row: PostgreSQLRawRow, isHeld: (Int64) -> Bool) throws {
        if reader == nil { reader = RowReader(columns: row.columns, query: query) }
        let reader = reader!
        let rowID = try reader.rowID(row)
        key.removeAll(keepingCapacity: true)
        reader.appendKey(row, rowID: rowID, to: &key)
        if checkingOrder {
            if SortKey.compare(key, previousKey) <= 0 { isInOrder = false }
            previousKey.removeAll(keepingCapacity: true)
            previousKey.append(contentsOf: key)
        }
        read.count += 1
        // The row a read stops at is where the next one starts.
        if read.count == limit {
            read.last = LoadBoundary(key: key, values: reader.sortValues(row), rowID: rowID)
        }
        if sectioned, SortKey.replaceFirstComponent(&previousFirst, from: key, ascending: ascending) {
            read.sectionNames[rowID] = reader.sectionName(row)
        }
        if isHeld(rowID) { return }
        read.append(rowID: rowID, key: key)
        if !batching { read.loaded[rowID] = row.fullRow(columns: reader.columns) }
    }
}
