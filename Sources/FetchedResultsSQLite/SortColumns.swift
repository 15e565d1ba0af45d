import FetchedResults
import Foundation
import GRDB
import GRDBSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// A row's sort values as SQLite returns them, column by column: read in place on a statement
/// (``StatementSortColumns``), or copied off one to be keyed later on another thread
/// (``CopiedSortRows``). `SortKeyEncoding` makes the same key of either.
protocol SortColumns {
    /// The storage class of sort value `column`: `SQLITE_NULL`, `SQLITE_INTEGER`,
    /// `SQLITE_FLOAT`, `SQLITE_TEXT` or `SQLITE_BLOB`.
    func type(_ column: Int) -> CInt
    func int64(_ column: Int) -> Int64
    func double(_ column: Int) -> Double
    /// Calls `body` with a text's bytes up to its first NUL, as `String(cString:)` reads them.
    func withText<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T
    /// Calls `body` with a blob's bytes.
    func withBlob<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T
}

extension SortColumns {
    /// Sort value `column` as GRDB reads it from a statement.
    func databaseValue(_ column: Int) -> DatabaseValue {
        switch type(column) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return int64(column).databaseValue
        case SQLITE_FLOAT: return double(column).databaseValue
        case SQLITE_TEXT: return withText(column) { String(decoding: $0, as: UTF8.self) }.databaseValue
        default: return withBlob(column) { Data($0) }.databaseValue
        }
    }
}

/// The sort values of the row a statement stands on, from column `first` on.
struct StatementSortColumns: SortColumns {
    let statement: SQLiteStatement
    let first: CInt

    func type(_ column: Int) -> CInt { sqlite3_column_type(statement, first + CInt(column)) }
    func int64(_ column: Int) -> Int64 { sqlite3_column_int64(statement, first + CInt(column)) }
    func double(_ column: Int) -> Double { sqlite3_column_double(statement, first + CInt(column)) }

    func withText<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        guard let text = sqlite3_column_text(statement, first + CInt(column)) else {
            return body(UnsafeBufferPointer(start: nil, count: 0))
        }
        return body(UnsafeBufferPointer(start: text, count: strlen(text)))
    }

    func withBlob<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        let index = first + CInt(column)
        let bytes = sqlite3_column_blob(statement, index)?.assumingMemoryBound(to: UInt8.self)
        let count = Int(sqlite3_column_bytes(statement, index))
        return body(UnsafeBufferPointer(start: count > 0 ? bytes : nil, count: count))
    }
}

/// Rows' ids and sort values copied off a statement as SQLite returned them, to be keyed later:
/// a read ahead steps SQLite on its own thread and leaves making the keys to the thread that
/// takes the rows, so that the two share the work.
struct CopiedSortRows: Sendable {
    /// Sort values per row.
    let columns: Int
    private(set) var rowIDs: [Int64] = []
    /// Each value: its storage class in one byte, then an integer's or a real's 8 bytes, or a
    /// text's or a blob's bytes.
    private var bytes: [UInt8] = []
    /// Where each value starts in `bytes`, row after row, then where the last one ends.
    private var starts: [Int] = [0]

    init(columns: Int) {
        self.columns = columns
    }

    /// Copies the sort values of the row `statement` stands on, from column `first` on.
    mutating func append(_ row: StatementSortColumns, rowID: Int64) {
        rowIDs.append(rowID)
        for column in 0..<columns {
            let type = row.type(column)
            bytes.append(UInt8(truncatingIfNeeded: type))
            switch type {
            case SQLITE_NULL: break
            case SQLITE_INTEGER: appendBits(UInt64(bitPattern: row.int64(column)))
            case SQLITE_FLOAT: appendBits(row.double(column).bitPattern)
            case SQLITE_TEXT: row.withText(column) { bytes.append(contentsOf: $0) }
            default: row.withBlob(column) { bytes.append(contentsOf: $0) }
            }
            starts.append(bytes.count)
        }
    }

    private mutating func appendBits(_ bits: UInt64) {
        withUnsafeBytes(of: bits) { bytes.append(contentsOf: $0) }
    }

    /// Calls `body` with each row, in order, and its id.
    func forEachRow(_ body: (Row, Int64) throws -> Void) rethrows {
        try bytes.withUnsafeBufferPointer { bytes in
            try starts.withUnsafeBufferPointer { starts in
                for (index, rowID) in rowIDs.enumerated() {
                    try body(Row(bytes: bytes, starts: starts, first: index * columns), rowID)
                }
            }
        }
    }

    /// The last row, with its id.
    func withLastRow<T>(_ body: (Row, Int64) throws -> T) rethrows -> T? {
        guard let rowID = rowIDs.last else { return nil }
        return try bytes.withUnsafeBufferPointer { bytes in
            try starts.withUnsafeBufferPointer { starts in
                try body(Row(bytes: bytes, starts: starts, first: (rowIDs.count - 1) * columns), rowID)
            }
        }
    }

    /// One copied row, valid inside ``forEachRow(_:)`` or ``withLastRow(_:)``.
    struct Row: SortColumns {
        let bytes: UnsafeBufferPointer<UInt8>
        let starts: UnsafeBufferPointer<Int>
        /// The index in `starts` of the row's first value.
        let first: Int

        func type(_ column: Int) -> CInt { CInt(bytes[starts[first + column]]) }

        func int64(_ column: Int) -> Int64 {
            Int64(bitPattern: UnsafeRawBufferPointer(payload(column)).loadUnaligned(as: UInt64.self))
        }

        func double(_ column: Int) -> Double {
            Double(bitPattern: UnsafeRawBufferPointer(payload(column)).loadUnaligned(as: UInt64.self))
        }

        func withText<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T { body(payload(column)) }
        func withBlob<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T { body(payload(column)) }

        /// The bytes after a value's storage class.
        private func payload(_ column: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: bytes[(starts[first + column] + 1)..<starts[first + column + 1]])
        }
    }
}
