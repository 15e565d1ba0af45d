#if canImport(Glibc)
import Glibc
#endif
import FetchedResults

/// One sort key on a PostgreSQL column, ordered exactly as the core's byte keys order it, so
/// that the in-memory order equals the server's `ORDER BY`:
/// - text compares byte by byte (`COLLATE "C"`), or with ASCII letters folded
///   (`lower(x COLLATE "C")`, which folds ASCII only — SQLite's `NOCASE`);
/// - NULLs come first in ascending order and last in descending order, as in SQLite
///   (PostgreSQL's default is the opposite, so the SQL says `NULLS FIRST` / `NULLS LAST`);
/// - integers and reals compare by value exactly, as the core encodes them.
public struct PostgreSQLSortDescriptor: Sendable, Hashable {
    /// The column's type, which says how its text form is read back.
    public enum ValueType: Sendable, Hashable {
        case integer, real, text, bytea
    }

    /// The column, or a key path across a to-one relationship (`zone.name`).
    public var column: String
    /// How the column's text form is read.
    public var type: ValueType
    /// Ascending (NULLs first) or descending (NULLs last).
    public var ascending: Bool
    /// Text ignoring the case of ASCII letters (SQLite's `NOCASE`); else byte order.
    public var caseInsensitive: Bool

    /// A sort key on `column`, ascending and byte-ordered unless said.
    public init(column: String, type: ValueType, ascending: Bool = true, caseInsensitive: Bool = false) {
        self.column = column
        self.type = type
        self.ascending = ascending
        self.caseInsensitive = caseInsensitive
    }

    /// This key as an `ORDER BY` term on its column.
    public var orderingSQL: String { orderingSQL(on: PostgreSQLChangeFeed.quoted(column)) }

    /// This key as an `ORDER BY` term on an SQL expression for its value.
    func orderingSQL(on expression: String) -> String {
        let ordered = switch type {
        case .text: caseInsensitive ? "lower(\(expression) COLLATE \"C\")" : "\(expression) COLLATE \"C\""
        case .integer, .real, .bytea: expression
        }
        return ordered + (ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
    }

    /// The `ORDER BY` clause of `descriptors`, the row id (`keyColumn`) last.
    public static func orderingSQL(_ descriptors: [PostgreSQLSortDescriptor], keyColumn: String) -> String {
        (descriptors.map(\.orderingSQL) + [PostgreSQLChangeFeed.quoted(keyColumn) + " ASC"]).joined(separator: ", ")
    }

    /// Appends one row's key, from its values as the server sent them in text form (nil for
    /// NULL), to `buffer`.
    public static func appendKey(_ values: [String?], rowID: Int64, descriptors: [PostgreSQLSortDescriptor], to buffer: inout [UInt8]) {
        for (value, descriptor) in zip(values, descriptors) {
            if let value {
                value.withCString { descriptor.appendValue($0, length: value.utf8.count, to: &buffer) }
            } else {
                descriptor.appendValue(nil, length: 0, to: &buffer)
            }
        }
        SortKey.appendRowID(rowID, to: &buffer)
    }

    /// Appends one value of this key, in the server's text form as a C string of `length`
    /// bytes (nil for NULL), to `buffer`.
    public func appendValue(_ text: UnsafePointer<CChar>?, length: Int, to buffer: inout [UInt8]) {
        let start = buffer.count
        if let text {
            switch type {
            case .integer:
                SortKey.appendNumber(integer: Int64(strtoll(text, nil, 10)), to: &buffer)
            case .real:
                // strtod reads the server's "Infinity", "-Infinity" and "NaN" too.
                SortKey.appendNumber(real: strtod(text, nil), to: &buffer)
            case .text:
                text.withMemoryRebound(to: UInt8.self, capacity: length) {
                    SortKey.appendText(UnsafeBufferPointer(start: $0, count: length), foldingCase: caseInsensitive, to: &buffer)
                }
            case .bytea:
                Self.hexBytes(String(cString: text)).withUnsafeBufferPointer { SortKey.appendBlob($0, to: &buffer) }
            }
        } else {
            SortKey.appendNull(to: &buffer)
        }
        if !ascending { SortKey.invert(&buffer, from: start) }
    }

    /// `bytea` in the server's hex output form (`\x0aff…`) as bytes.
    static func hexBytes(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8.dropFirst(2))
        func value(_ digit: UInt8) -> UInt8 { digit <= 0x39 ? digit - 0x30 : (digit | 0x20) - 0x61 + 10 }
        return stride(from: 0, to: digits.count - 1, by: 2).map { value(digits[$0]) << 4 | value(digits[$0 + 1]) }
    }
}
