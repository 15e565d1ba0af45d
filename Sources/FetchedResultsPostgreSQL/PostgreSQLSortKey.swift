import FetchedResults

#if canImport(Glibc)
    import Glibc
#endif

/// One sort key of a request on PostgreSQL, with its column's type: ordered on the server
/// exactly as the core's byte keys order it, so that the in-memory order equals the server's
/// `ORDER BY`:
/// - text compares byte by byte (`COLLATE "C"`), or with ASCII letters folded
///   (`lower(x COLLATE "C")`, which folds ASCII only — SQLite's `NOCASE`);
/// - NULLs come first in ascending order and last in descending order, as in SQLite
///   (PostgreSQL's default is the opposite, so the SQL says `NULLS FIRST` / `NULLS LAST`);
/// - integers and reals compare by value exactly, as the core encodes them; booleans as 0 and 1.
struct PostgreSQLSortKey {
    /// How a column's text form is read back, by the column's type.
    enum ValueType: Equatable {
        case integer, real, text, bytea, boolean

        /// The type of a column of this PostgreSQL type (`pg_type.typname`), or nil when its
        /// order cannot be kept in memory (`numeric` beyond a double's precision, `timestamp`…).
        init?(typeName: String) {
            switch typeName {
            case "int2", "int4", "int8", "oid": self = .integer
            case "float4", "float8": self = .real
            case "text", "varchar", "name": self = .text
            case "bytea": self = .bytea
            case "bool": self = .boolean
            default: return nil
            }
        }
    }

    let descriptor: ColumnSortDescriptor
    let type: ValueType

    /// This key as an `ORDER BY` term on an SQL expression for its value.
    func orderingSQL(on expression: String) -> String {
        let ordered =
            switch type {
            case .text: descriptor.foldsCase ? "lower(\(expression) COLLATE \"C\")" : "\(expression) COLLATE \"C\""
            case .integer, .real, .bytea, .boolean: expression
            }
        return ordered + (descriptor.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
    }

    /// A comparison of the key's value with a parameter, as the order compares them.
    func comparisonSQL(on expression: String, _ operator: String, parameter: Int) -> String {
        switch type {
        case .text where descriptor.foldsCase:
            return "lower(\(expression) COLLATE \"C\") \(`operator`) lower($\(parameter)::text COLLATE \"C\")"
        case .text:
            return "(\(expression) COLLATE \"C\") \(`operator`) ($\(parameter)::text COLLATE \"C\")"
        case .integer, .real, .bytea, .boolean:
            return "\(expression) \(`operator`) $\(parameter)"
        }
    }

    /// Appends one value of this key, in the server's text form as a C string of `length`
    /// bytes (nil for NULL), to `buffer`.
    func appendValue(_ text: UnsafePointer<CChar>?, length: Int, to buffer: inout [UInt8]) {
        let start = buffer.count
        if let text {
            switch type {
            case .integer:
                SortKey.appendNumber(integer: Int64(strtoll(text, nil, 10)), to: &buffer)
            case .real:
                // strtod reads the server's "Infinity", "-Infinity" and "NaN" too.
                SortKey.appendNumber(real: strtod(text, nil), to: &buffer)
            case .boolean:
                SortKey.appendNumber(integer: text.pointee == CChar(UInt8(ascii: "t")) ? 1 : 0, to: &buffer)
            case .text:
                text.withMemoryRebound(to: UInt8.self, capacity: length) {
                    SortKey.appendText(
                        UnsafeBufferPointer(start: $0, count: length), foldingCase: descriptor.foldsCase, to: &buffer)
                }
            case .bytea:
                Self.hexBytes(String(cString: text)).withUnsafeBufferPointer { SortKey.appendBlob($0, to: &buffer) }
            }
        } else {
            SortKey.appendNull(to: &buffer)
        }
        if !descriptor.ascending { SortKey.invert(&buffer, from: start) }
    }

    /// Appends one value given as text (nil for NULL).
    func appendValue(_ value: String?, to buffer: inout [UInt8]) {
        guard let value else { return appendValue(nil, length: 0, to: &buffer) }
        value.withCString { appendValue($0, length: value.utf8.count, to: &buffer) }
    }

    /// `bytea` in the server's hex output form (`\x0aff…`) as bytes.
    static func hexBytes(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8.dropFirst(2))
        func value(_ digit: UInt8) -> UInt8 { digit <= 0x39 ? digit - 0x30 : (digit | 0x20) - 0x61 + 10 }
        return stride(from: 0, to: digits.count - 1, by: 2).map { value(digits[$0]) << 4 | value(digits[$0 + 1]) }
    }
}

extension ColumnSortDescriptor {
    /// This key as an `ORDER BY` (or index) term in PostgreSQL's SQL, exactly as a controller on
    /// PostgreSQL orders it, on a column of type `columnType` (`pg_type.typname`: `text`,
    /// `int8`…; another type orders as text): for an index that the controller's fetch reads in
    /// order, or a query that must list rows in the controller's order.
    public func postgreSQLOrderingSQL(columnType: String) -> String {
        let type = PostgreSQLSortKey.ValueType(typeName: columnType) ?? .text
        return PostgreSQLSortKey(descriptor: self, type: type).orderingSQL(on: PostgreSQLChangeFeed.quotedName(key))
    }
}
