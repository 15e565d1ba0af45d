import FetchedResults
import GRDB

extension SQLiteStore {
    // MARK: - Ordered reads

    public func position(in db: Database) throws -> SQLitePosition {
        SQLitePosition(sequence: try ChangeHistory.isInstalled(db) ? ChangeHistory.latestSequence(db) : nil)
    }

    /// The request's ordered read (see `SQLiteOrderedQuery`).
    public func readOrdered(
        limit: Int?, after boundary: LoadBoundary<[DatabaseValue]>?, skipping held: (Int64) -> Bool, in db: Database
    ) throws -> OrderedRead<Row, [DatabaseValue]> {
        try orderedQuery.read(limit: limit, after: boundary, skipping: held, in: db)
    }

    // MARK: - Rows

    public func rows(_ rowIDs: [Int64], matching: Bool, in db: Database) throws -> [Int64: Row] {
        if rowIDs.count == 1 { return try oneRow(rowIDs[0], matching: matching, in: db).rows }
        var result: [Int64: Row] = [:]
        let condition = matching ? predicate.andSQL : ""
        // Chunks keep the number of SQL parameters under SQLite's limit.
        for start in stride(from: 0, to: rowIDs.count, by: Self.parametersPerStatement) {
            let chunk = rowIDs[start..<min(start + Self.parametersPerStatement, rowIDs.count)]
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            var arguments = StatementArguments(rowIDs: chunk)
            if matching { arguments += predicate.arguments }
            // Cached: a statement is prepared once per chunk size, not once per look.
            let statement = try db.cachedStatement(sql: selectSQL + " WHERE rowid IN (\(placeholders))\(condition)")
            for row in try Row.fetchAll(statement, arguments: arguments) {
                result[row[row.count - 1]] = row
            }
        }
        return result
    }

    /// A row read by id: in `rows` unless it is gone (or does not match), and the statement
    /// that read it.
    typealias OneRowRead = (rows: [Int64: Row], statement: Statement)

    /// ``rows(_:matching:in:)`` for one id, with a statement made once: a look after a one-row
    /// commit. Also the statement, stepped: a ``SchemaWitness``.
    func oneRow(_ rowID: Int64, matching: Bool, in db: Database) throws -> OneRowRead {
        let statement = try oneRowStatement(matching: matching, in: db)
        var arguments: StatementArguments = [rowID]
        if matching { arguments += predicate.arguments }
        guard let row = try Row.fetchOne(statement, arguments: arguments) else { return ([:], statement) }
        return ([rowID: row], statement)
    }

    /// The statement ``oneRow(_:matching:in:)`` reads with on `db`, from the connection's cache.
    func oneRowStatement(matching: Bool, in db: Database) throws -> Statement {
        try db.cachedStatement(sql: matching ? oneMatchingRowSQL : oneRowSQL)
    }

    /// How many ids one statement binds: well under SQLite's limit on parameters.
    static let parametersPerStatement = 500

    public func allRows(in db: Database) throws -> [Int64: Row] {
        let rows = try Row.fetchAll(db, sql: selectSQL + " \(predicate.whereSQL)", arguments: predicate.arguments)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0[$0.count - 1], $0) })
    }

    public func sectionName(ofRow rowID: Int64, in db: Database) throws -> String {
        let column = columnSQL(request.sortDescriptors[0].key)
        let value = try DatabaseValue.fetchOne(
            db, sql: "SELECT \(column) FROM \(quotedTable) WHERE rowid = ?", arguments: [rowID])
        return value.map(Self.sectionName(of:)) ?? ""
    }

    public func sectionName(of row: Row) -> String {
        let index = sortKeyIndexes(of: row)[0]
        return Self.sectionName(of: index >= 0 ? row.storedValue(at: index) : .null)
    }

    /// A section value as text: the section's name.
    static func sectionName(of value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return ""
        case let .string(text): return text
        case let .int64(number): return String(number)
        case let .double(number): return String(number)
        case let .blob(data): return String(decoding: data, as: UTF8.self)
        }
    }

    public func key(of row: Row, rowID: Int64) -> [UInt8] {
        orderedQuery.encoding.key(of: row, at: sortKeyIndexes(of: row), rowID: rowID)
    }

    /// The names of the table columns whose values differ (the trailing row id excluded); every
    /// column when the old row was not loaded (the row was written) or had other columns (the
    /// table changed in between).
    public func changedColumns(from old: Row?, to new: Row) -> Set<String> {
        guard let old, old.count == new.count else {
            let names = rowColumnNames ?? Set(new.columnNames.dropLast())
            rowColumnNames = names
            return names
        }
        // Names only of the columns that differ: a look compares a row after every commit, and
        // one column changed (a win) is the common case.
        var changed: Set<String> = []
        for index in 0..<(new.count - 1) where old.storedValue(at: index) != new.storedValue(at: index) {
            changed.insert(new[new.index(new.startIndex, offsetBy: index)].0)
        }
        return changed
    }

    public func allColumns(in db: Database) throws -> Set<String> {
        Set(try currentSchema(db).columns)
    }

    /// Where the sort keys are among the columns of a row selected by `selectSQL`.
    private func sortKeyIndexes(of row: Row) -> [Int] {
        let indexes = sortKeyIndexes ?? Self.sortKeyIndexes(of: request.sortDescriptors, in: Array(row.columnNames))
        sortKeyIndexes = indexes
        return indexes
    }

    /// Where each sort key's column is among `columnNames` (-1: none, a NULL value).
    static func sortKeyIndexes(of descriptors: [ColumnSortDescriptor], in columnNames: [String]) -> [Int] {
        let names = columnNames.map { $0.lowercased() }
        return descriptors.map { names.firstIndex(of: $0.key.lowercased()) ?? -1 }
    }

    /// The values of `row` at `indexes` (see ``sortKeyIndexes(of:in:)``).
    static func sortValues(of row: Row, at indexes: [Int]) -> [DatabaseValue] {
        indexes.map { $0 >= 0 ? row.storedValue(at: $0) : .null }
    }
}
