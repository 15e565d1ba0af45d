import FetchedResults
import GRDB

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

    /// The key of one row.
    func key(_ values: [DatabaseValue], rowID: Int64) -> [UInt8] {
        var key: [UInt8] = []
        append(values, rowID: rowID, to: &key)
        return key
    }
}
