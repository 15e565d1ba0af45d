import FetchedResults
import GRDB
import GRDBSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// Turns a SQLite row's sort values into one byte key (`SortKey` in the core says how the
/// bytes are laid out): SQLite's values appended with the core's component encoders, in SQLite's
/// order of storage classes, `NOCASE` as ASCII folding.
struct SortKeyEncoding: Sendable {
    /// Per sort descriptor, in order: whether its text is folded (`NOCASE`) and whether it
    /// ascends. Worked out once: a load encodes a key per row, and the collation's name was
    /// compared anew for every text value.
    private let columns: [(foldsCase: Bool, ascending: Bool)]

    init(descriptors: [ColumnSortDescriptor]) {
        columns = descriptors.map { ($0.foldsCase, $0.ascending) }
    }

    /// Appends the key of one row to `buffer`.
    func append(_ values: [DatabaseValue], rowID: Int64, to buffer: inout [UInt8]) {
        for (value, column) in zip(values, columns) {
            let start = buffer.count
            switch value.storage {
            case .null: SortKey.appendNull(to: &buffer)
            case let .int64(integer): SortKey.appendNumber(integer: integer, to: &buffer)
            case let .double(real): SortKey.appendNumber(real: real, to: &buffer)
            case let .string(text):
                var text = text
                text.withUTF8 { SortKey.appendText($0, foldingCase: column.foldsCase, to: &buffer) }
            case let .blob(data):
                data.withUnsafeBytes { SortKey.appendBlob($0.bindMemory(to: UInt8.self), to: &buffer) }
            }
            if !column.ascending { SortKey.invert(&buffer, from: start) }
        }
        SortKey.appendRowID(rowID, to: &buffer)
    }

    /// Appends the key of the row a statement is on, whose sort values are its columns from
    /// `first` on, read in place: the same bytes as ``append(_:rowID:to:)`` with the values
    /// GRDB would make of those columns, without making them (a load reads a million rows).
    func append(columnsOf statement: SQLiteStatement, from first: CInt, rowID: Int64, to buffer: inout [UInt8]) {
        for (offset, column) in columns.enumerated() {
            let index = first + CInt(offset)
            let start = buffer.count
            switch sqlite3_column_type(statement, index) {
            case SQLITE_NULL: SortKey.appendNull(to: &buffer)
            case SQLITE_INTEGER: SortKey.appendNumber(integer: sqlite3_column_int64(statement, index), to: &buffer)
            case SQLITE_FLOAT: SortKey.appendNumber(real: sqlite3_column_double(statement, index), to: &buffer)
            case SQLITE_TEXT: Self.appendText(of: statement, index, foldingCase: column.foldsCase, to: &buffer)
            default:
                let count = Int(sqlite3_column_bytes(statement, index))
                let bytes = sqlite3_column_blob(statement, index)?.assumingMemoryBound(to: UInt8.self)
                SortKey.appendBlob(UnsafeBufferPointer(start: count > 0 ? bytes : nil, count: count), to: &buffer)
            }
            if !column.ascending { SortKey.invert(&buffer, from: start) }
        }
        SortKey.appendRowID(rowID, to: &buffer)
    }

    /// A text column as GRDB reads it (`String(cString:)`: up to the first NUL, invalid UTF-8
    /// repaired), appended. ASCII text, the common case, is appended from the column's bytes.
    private static func appendText(
        of statement: SQLiteStatement, _ index: CInt, foldingCase: Bool, to buffer: inout [UInt8]
    ) {
        guard let text = sqlite3_column_text(statement, index) else {
            return SortKey.appendText(UnsafeBufferPointer(start: nil, count: 0), foldingCase: foldingCase, to: &buffer)
        }
        let bytes = UnsafeBufferPointer(start: text, count: strlen(text))
        if isValidUTF8(bytes) { return SortKey.appendText(bytes, foldingCase: foldingCase, to: &buffer) }
        var string = String(cString: text)
        string.withUTF8 { SortKey.appendText($0, foldingCase: foldingCase, to: &buffer) }
    }

    /// Whether `bytes` are valid UTF-8 (then `String(cString:)` keeps them as they are).
    private static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.allSatisfy({ $0 < 0x80 }) { return true }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// The key of one row.
    func key(_ values: [DatabaseValue], rowID: Int64) -> [UInt8] {
        var key: [UInt8] = []
        append(values, rowID: rowID, to: &key)
        return key
    }
}
