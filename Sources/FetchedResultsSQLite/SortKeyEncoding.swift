import FetchedResults
import GRDB
import GRDBSQLite

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
        for (value, column) in zip(values, columns) { Self.append(value, column: column, to: &buffer) }
        SortKey.appendRowID(rowID, to: &buffer)
    }

    /// The key of a row's values at `indexes` (-1: none, a NULL value), without gathering them
    /// first: a look makes a key of every row a commit touched.
    func key(of row: Row, at indexes: [Int], rowID: Int64) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(Self.typicalKeyLength)
        for (index, column) in zip(indexes, columns) {
            Self.append(index >= 0 ? row.storedValue(at: index) : .null, column: column, to: &key)
        }
        SortKey.appendRowID(rowID, to: &key)
        return key
    }

    /// Room for most keys at once: a key grown byte by byte is copied several times.
    private static let typicalKeyLength = 64

    private static func append(
        _ value: DatabaseValue, column: (foldsCase: Bool, ascending: Bool), to buffer: inout [UInt8]
    ) {
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

    /// Appends the key of a row whose sort values are read in place (on a statement, or copied
    /// off one): the same bytes as ``append(_:rowID:to:)`` with the values GRDB would make of
    /// them, without making them (a load reads a million rows).
    func append<Row: SortColumns>(_ row: Row, rowID: Int64, to buffer: inout [UInt8]) {
        for (index, column) in columns.enumerated() {
            let start = buffer.count
            switch row.type(index) {
            case SQLITE_NULL: SortKey.appendNull(to: &buffer)
            case SQLITE_INTEGER: SortKey.appendNumber(integer: row.int64(index), to: &buffer)
            case SQLITE_FLOAT: SortKey.appendNumber(real: row.double(index), to: &buffer)
            case SQLITE_TEXT: row.withText(index) { Self.appendText($0, foldingCase: column.foldsCase, to: &buffer) }
            default: row.withBlob(index) { SortKey.appendBlob($0, to: &buffer) }
            }
            if !column.ascending { SortKey.invert(&buffer, from: start) }
        }
        SortKey.appendRowID(rowID, to: &buffer)
    }

    /// A text's bytes up to its first NUL, appended as GRDB's string of them (invalid UTF-8
    /// repaired). ASCII text, the common case, is appended as it is.
    private static func appendText(_ bytes: UnsafeBufferPointer<UInt8>, foldingCase: Bool, to buffer: inout [UInt8]) {
        if isValidUTF8(bytes) { return SortKey.appendText(bytes, foldingCase: foldingCase, to: &buffer) }
        var string = String(decoding: bytes, as: UTF8.self)
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
