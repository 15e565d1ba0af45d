// A third store, written outside the library's package through its public API only: a table
// held in memory, with a log of the rows each transaction changed as its change feed.

import FetchedResults

/// A row of a ``MemoryTable``: its id and its columns' values.
public struct MemoryRow: Equatable, Sendable {
    public var id: Int64
    public var values: [String: SortValue]

    public init(id: Int64, values: [String: SortValue]) {
        self.id = id
        self.values = values
    }

    public subscript(column: String) -> SortValue { values[column] ?? .null }
}

/// Which rows a request on a ``MemoryStore`` selects.
public struct MemoryPredicate: FetchPredicate {
    public let matches: @Sendable (MemoryRow) -> Bool

    public init(_ matches: @escaping @Sendable (MemoryRow) -> Bool) { self.matches = matches }
}

/// A table in memory. Every change is made in a transaction, which appends the ids of the rows
/// it changed to the table's log: the log's length is a position in the change feed.
public final class MemoryTable {
    /// What a reader sees: the rows and the log as one transaction left them.
    public struct Snapshot {
        public let rows: [Int64: MemoryRow]
        let log: [Int64]
    }

    /// The table's columns.
    public let columns: Set<String>
    private var rows: [Int64: MemoryRow] = [:]
    private var log: [Int64] = []
    private var changed: Set<Int64>?

    public init(columns: Set<String>) { self.columns = columns }

    /// The table as it is now.
    public var snapshot: Snapshot { Snapshot(rows: rows, log: log) }

    /// Runs `body` as one transaction: all its changes, or none when it throws.
    public func transaction<T>(_ body: (MemoryTable) throws -> T) throws -> T {
        precondition(changed == nil, "transactions do not nest")
        let before = rows
        changed = []
        defer { changed = nil }
        do {
            let value = try body(self)
            log += changed!.sorted()
            return value
        } catch {
            rows = before
            throw error
        }
    }

    public var allRows: [MemoryRow] { Array(rows.values) }

    /// Inserts a row, or replaces the row of its id.
    public func insert(_ row: MemoryRow) {
        precondition(changed != nil, "changes are made in a transaction")
        rows[row.id] = row
        changed!.insert(row.id)
    }

    /// Changes the rows `body` changes (each row's values, by id).
    public func update(where predicate: (MemoryRow) -> Bool, _ body: (inout MemoryRow) -> Void) {
        precondition(changed != nil, "changes are made in a transaction")
        for id in rows.keys.sorted() where predicate(rows[id]!) {
            body(&rows[id]!)
            changed!.insert(id)
        }
    }

    /// Deletes the rows `predicate` selects.
    public func delete(where predicate: (MemoryRow) -> Bool) {
        precondition(changed != nil, "changes are made in a transaction")
        for (id, row) in rows where predicate(row) {
            rows[id] = nil
            changed!.insert(id)
        }
    }
}

/// What a ``MemoryStore`` refuses.
public enum MemoryStoreError: Error {
    case unknownColumn(String)
    case predicateOfAnotherStore
}

/// A results controller's store on a ``MemoryTable``.
public final class MemoryStore: ResultsStore {
    public typealias Row = MemoryRow
    public typealias Position = Int
    public typealias Snapshot = MemoryTable.Snapshot
    public typealias WriteContext = MemoryTable

    public let table: MemoryTable
    private var request = TableFetchRequest(table: "")
    private var predicate: MemoryPredicate?

    public init(table: MemoryTable) { self.table = table }

    public func prepare(_ request: TableFetchRequest, sectionNameKeyPath: String?) throws {
        for descriptor in request.sortDescriptors where !table.columns.contains(descriptor.key) {
            throw FetchedResultsError.unknownColumn(key: descriptor.key, table: request.table)
        }
        switch request.predicate {
        case nil: predicate = nil
        case let given as MemoryPredicate: predicate = given
        default: throw MemoryStoreError.predicateOfAnotherStore
        }
        self.request = request
    }

    public func read<T>(consistent: Bool, _ body: (Snapshot) throws -> T) throws -> T {
        try body(table.snapshot)
    }

    public func position(in snapshot: Snapshot) throws -> Int { snapshot.log.count }

    private func matches(_ row: MemoryRow) -> Bool { predicate?.matches(row) ?? true }

    private func sortValues(of row: MemoryRow) -> [SortValue] {
        request.sortDescriptors.map { row[$0.key] }
    }

    public func readOrdered(
        limit: Int?, after boundary: LoadBoundary<[SortValue]>?, skipping held: (Int64) -> Bool, in snapshot: Snapshot
    ) throws -> OrderedRead<MemoryRow, [SortValue]> {
        var ordered = snapshot.rows.values.filter(matches).map { (row: $0, key: key(of: $0, rowID: $0.id)) }
        ordered.sort { $0.key.lexicographicallyPrecedes($1.key) }
        if let boundary { ordered.removeAll { !boundary.key.lexicographicallyPrecedes($0.key) } }
        if let limit { ordered = Array(ordered.prefix(limit)) }
        var read = OrderedRead<MemoryRow, [SortValue]>()
        for (row, key) in ordered {
            read.count += 1
            guard !held(row.id) else { continue }
            read.append(rowID: row.id, key: key)
            if request.fetchBatchSize == 0 { read.loaded[row.id] = row }
        }
        if let limit, ordered.count == limit, let last = ordered.last {
            read.last = LoadBoundary(key: last.key, values: sortValues(of: last.row), rowID: last.row.id)
        }
        return read
    }

    public func rows(_ rowIDs: [Int64], matching: Bool, in snapshot: Snapshot) throws -> [Int64: MemoryRow] {
        var found: [Int64: MemoryRow] = [:]
        for id in rowIDs {
            if let row = snapshot.rows[id], !matching || matches(row) { found[id] = row }
        }
        return found
    }

    public func key(of row: MemoryRow, rowID: Int64) -> [UInt8] {
        request.sortKey(of: sortValues(of: row), rowID: rowID)
    }

    public func sectionName(of row: MemoryRow) -> String {
        row[request.sortDescriptors[0].key].sectionName
    }

    public func changedColumns(from old: MemoryRow?, to new: MemoryRow) -> Set<String> {
        guard let old else { return table.columns }
        return Set(table.columns.filter { old[$0] != new[$0] })
    }

    public func allColumns(in snapshot: Snapshot) throws -> Set<String> { table.columns }

    public func changes(since position: Int, in snapshot: Snapshot) throws -> FeedRead<MemoryRow, Int> {
        let touched = Set(snapshot.log[position...])
        return .changed(
            touched: touched, rows: try rows(Array(touched), matching: true, in: snapshot), position: snapshot.log.count
        )
    }

    public func write<T>(_ body: (MemoryTable) throws -> T, then follow: (Snapshot) throws -> Void) throws -> T {
        let value = try table.transaction(body)
        try follow(table.snapshot)
        return value
    }
}
