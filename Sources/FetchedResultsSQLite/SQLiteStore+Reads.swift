import FetchedResults
import GRDB
import GRDBSQLite

extension SQLiteStore {
    // MARK: - Ordered reads

    public func position(in db: Database) throws -> SQLitePosition {
        SQLitePosition(sequence: try ChangeHistory.isInstalled(db) ? ChangeHistory.latestSequence(db) : nil)
    }

    /// One ordered query per keyset part, each a cached statement (a progressive load runs
    /// the same parts at every step); with a batch size, row ids and sort values only, which
    /// the store can answer from an index on the sort keys, and the keys made straight from the
    /// statement's columns.
    public func readOrdered(
        limit: Int?, after boundary: LoadBoundary<[DatabaseValue]>?, skipping held: (Int64) -> Bool, in db: Database
    ) throws -> OrderedRead<Row, [DatabaseValue]> {
        var read = OrderedRead<Row, [DatabaseValue]>()
        var key: [UInt8] = []
        let keyCount = request.sortDescriptors.count
        let batching = request.fetchBatchSize > 0
        let sectioned = sectionNameKeyPath != nil
        let ascending = request.sortDescriptors.first?.ascending ?? true
        var previousFirst: [UInt8]? = boundary.map { SortKey.firstComponent(of: $0.key, ascending: ascending) }
        let select =
            batching
            ? "SELECT rowid, " + request.sortDescriptors.map { columnSQL($0.key) }.joined(separator: ", ")
                + " FROM \(quotedTable)"
            : selectSQL
        let parts = boundary.map(keysetParts(after:)) ?? [("", StatementArguments())]
        for part in parts {
            let remaining = limit.map { $0 - read.count }
            if let remaining, remaining <= 0 { break }
            let conditions: [String] =
                (predicate.sql.isEmpty ? [] : ["(\(predicate.sql))"]) + (part.sql.isEmpty ? [] : [part.sql])
            let whereSQL = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let statement = try db.cachedStatement(
                sql: select + whereSQL + " ORDER BY \(request.sqliteOrderBySQL)" + (remaining == nil ? "" : " LIMIT ?"))
            var arguments = predicate.arguments + part.arguments
            if let remaining { arguments += [remaining] }
            let cursor = try Row.fetchCursor(statement, arguments: arguments)
            let current = statement.sqliteStatement
            while let row = try cursor.next() {
                read.count += 1
                let rowID: Int64 = batching ? sqlite3_column_int64(current, 0) : row[row.count - 1]
                key.removeAll(keepingCapacity: true)
                // Straight from the statement: GRDB's values (a string per text) cost more than
                // the rest of the load.
                if batching {
                    encoding.append(columnsOf: current, from: 1, rowID: rowID, to: &key)
                } else {
                    encoding.append(sortValues(of: row), rowID: rowID, to: &key)
                }
                if sectioned, SortKey.replaceFirstComponent(&previousFirst, from: key, ascending: ascending) {
                    read.sectionNames[rowID] = Self.sectionName(of: sortValue(0, of: row, batching: batching))
                }
                // The row a read stops at is where the next one starts.
                if read.count == limit {
                    let values = (0..<keyCount).map { sortValue($0, of: row, batching: batching) }
                    read.last = LoadBoundary(key: key, values: values, rowID: rowID)
                }
                if held(rowID) { continue }
                read.append(rowID: rowID, key: key)
                if !batching { read.loaded[rowID] = row.copy() }
            }
        }
        return read
    }

    /// Sort value `index` of the row a statement of ``readOrdered(limit:after:skipping:in:)`` is on.
    private func sortValue(_ index: Int, of row: Row, batching: Bool) -> DatabaseValue {
        batching ? row[index + 1] : sortValues(of: row)[index]
    }

    /// The rows after `boundary` in the request's order, as SQL conditions whose rows follow one
    /// another, each one range of an index on the sort keys (see `KeysetPlan`).
    func keysetParts(after boundary: LoadBoundary<[DatabaseValue]>) -> [(sql: String, arguments: StatementArguments)] {
        let descriptors = request.sortDescriptors
        return KeysetPlan.sql(ascending: descriptors.map(\.ascending), boundaryIsNull: boundary.values.map(\.isNull)) {
            SQLiteKeyset(descriptors: descriptors, boundary: boundary)
        }.map { ($0.sql, StatementArguments(values: $0.dialect.arguments)) }
    }

    // MARK: - Rows

    public func rows(_ rowIDs: [Int64], matching: Bool, in db: Database) throws -> [Int64: Row] {
        if rowIDs.count == 1 { return try oneRow(rowIDs[0], matching: matching, in: db) }
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

    /// ``rows(_:matching:in:)`` for one id, with a statement made once: a look after a one-row
    /// commit.
    private func oneRow(_ rowID: Int64, matching: Bool, in db: Database) throws -> [Int64: Row] {
        let statement = try db.cachedStatement(sql: matching ? oneMatchingRowSQL : oneRowSQL)
        var arguments: StatementArguments = [rowID]
        if matching { arguments += predicate.arguments }
        guard let row = try Row.fetchOne(statement, arguments: arguments) else { return [:] }
        return [rowID: row]
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
        Self.sectionName(of: sortValues(of: row)[0])
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
        encoding.key(sortValues(of: row), rowID: rowID)
    }

    /// The names of the table columns whose values differ (the trailing row id excluded); every
    /// column when the old row was not loaded, since the row was written.
    public func changedColumns(from old: Row?, to new: Row) -> Set<String> {
        let names = Array(new.columnNames.dropLast())
        guard let old else { return Set(names) }
        var changed: Set<String> = []
        for index in names.indices where old[index] as DatabaseValue != new[index] as DatabaseValue {
            changed.insert(names[index])
        }
        return changed
    }

    public func allColumns(in db: Database) throws -> Set<String> {
        Set(try currentSchema(db).columns)
    }

    /// The sort values of a row selected by `selectSQL`.
    func sortValues(of row: Row) -> [DatabaseValue] {
        let indexes =
            sortKeyIndexes
            ?? {
                let names = Array(row.columnNames).map { $0.lowercased() }
                return request.sortDescriptors.map { names.firstIndex(of: $0.key.lowercased()) ?? -1 }
            }()
        sortKeyIndexes = indexes
        return indexes.map { $0 >= 0 ? row[$0] as DatabaseValue : .null }
    }
}

/// Keyset conditions in SQLite's SQL: values compared under their column's collation.
struct SQLiteKeyset: KeysetPlan.Dialect {
    let descriptors: [ColumnSortDescriptor]
    let boundary: LoadBoundary<[DatabaseValue]>
    var arguments: [DatabaseValue] = []

    mutating func compare(key: Int, _ operator: String) -> String {
        arguments.append(boundary.values[key])
        let collation = descriptors[key].collation == .caseInsensitive ? "NOCASE" : "BINARY"
        return "\(descriptors[key].key.quotedDatabaseIdentifier) \(`operator`) ? COLLATE \(collation)"
    }

    func key(_ key: Int, isNull null: Bool) -> String {
        "\(descriptors[key].key.quotedDatabaseIdentifier) IS \(null ? "" : "NOT ")NULL"
    }

    mutating func rowIDGreater() -> String {
        arguments.append(boundary.rowID.databaseValue)
        return "rowid > ?"
    }
}
