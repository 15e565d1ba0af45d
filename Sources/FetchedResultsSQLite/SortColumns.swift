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
///
/// One byte array, row after row: the row id's 8 bytes, then each value's storage class in one
/// byte followed by an integer's or a real's 8 bytes, or a text's or a blob's length in 4 bytes
/// and its bytes. Read in order only, so it keeps no index: a load holds two of these at once,
/// beside the keys of every row already loaded.
struct CopiedSortRows: Sendable {
    /// Sort values per row.
    let columns: Int
    /// How many rows were copied.
    private(set) var count = 0
    private var bytes: [UInt8] = []
    /// Where the last row starts in `bytes`.
    private var lastRowStart = 0

    init(columns: Int) {
        self.columns = columns
    }

    /// Empties the rows, keeping the room they took: a load's reads ahead take turns with two
    /// of these, so that its steps soon allocate nothing more.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        count = 0
        lastRowStart = 0
    }

    /// Copies the sort values of the row a statement stands on.
    mutating func append(_ row: StatementSortColumns, rowID: Int64) {
        lastRowStart = bytes.count
        count += 1
        appendBits(UInt64(bitPattern: rowID))
        for column in 0..<columns {
            let type = row.type(column)
            bytes.append(UInt8(truncatingIfNeeded: type))
            switch type {
            case SQLITE_NULL: break
            case SQLITE_INTEGER: appendBits(UInt64(bitPattern: row.int64(column)))
            case SQLITE_FLOAT: appendBits(row.double(column).bitPattern)
            case SQLITE_TEXT: row.withText(column) { appendCounted($0) }
            default: row.withBlob(column) { appendCounted($0) }
            }
        }
    }

    private mutating func appendBits(_ bits: UInt64) {
        withUnsafeBytes(of: bits) { bytes.append(contentsOf: $0) }
    }

    private mutating func appendCounted(_ value: UnsafeBufferPointer<UInt8>) {
        withUnsafeBytes(of: UInt32(value.count)) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: value)
    }

    /// Calls `body` with each row, in order, and its id.
    func forEachRow(_ body: (CopiedRow, Int64) throws -> Void) rethrows {
        try bytes.withUnsafeBufferPointer { bytes in
            var start = 0
            for _ in 0..<count {
                let row = CopiedRow(bytes: bytes, start: start, columns: columns)
                try body(row, row.rowID)
                start = row.end
            }
        }
    }

    /// The last row, with its id.
    func withLastRow<T>(_ body: (CopiedRow, Int64) throws -> T) rethrows -> T? {
        guard count > 0 else { return nil }
        return try bytes.withUnsafeBufferPointer { bytes in
            let row = CopiedRow(bytes: bytes, start: lastRowStart, columns: columns)
            return try body(row, row.rowID)
        }
    }

    /// One copied row, valid inside ``forEachRow(_:)`` or ``withLastRow(_:)``.
    struct CopiedRow: SortColumns {
        private let bytes: UnsafeBufferPointer<UInt8>
        /// Where the row's id starts.
        private let start: Int
        private let columns: Int

        init(bytes: UnsafeBufferPointer<UInt8>, start: Int, columns: Int) {
            self.bytes = bytes
            self.start = start
            self.columns = columns
        }

        var rowID: Int64 { Int64(bitPattern: loadBits(at: start)) }

        /// Where the next row starts.
        var end: Int { valueStart(columns) }

        func type(_ column: Int) -> CInt { CInt(bytes[valueStart(column)]) }
        func int64(_ column: Int) -> Int64 { Int64(bitPattern: loadBits(at: valueStart(column) + 1)) }
        func double(_ column: Int) -> Double { Double(bitPattern: loadBits(at: valueStart(column) + 1)) }
        func withText<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T { body(counted(column)) }
        func withBlob<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T { body(counted(column)) }

        /// Where value `column` starts (its storage class), found by stepping over the ones
        /// before it: a row has a few.
        private func valueStart(_ column: Int) -> Int {
            var offset = start + 8
            for _ in 0..<column {
                switch CInt(bytes[offset]) {
                case SQLITE_NULL: offset += 1
                case SQLITE_INTEGER, SQLITE_FLOAT: offset += 9
                default: offset += 5 + Int(loadLength(at: offset + 1))
                }
            }
            return offset
        }

        private func counted(_ column: Int) -> UnsafeBufferPointer<UInt8> {
            let start = valueStart(column)
            let length = Int(loadLength(at: start + 1))
            return UnsafeBufferPointer(rebasing: bytes[(start + 5)..<(start + 5 + length)])
        }

        private func loadBits(at offset: Int) -> UInt64 {
            UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[offset..<(offset + 8)])
                .loadUnaligned(as: UInt64.self)
        }

        private func loadLength(at offset: Int) -> UInt32 {
            UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[offset..<(offset + 4)])
                .loadUnaligned(as: UInt32.self)
        }
    }
}
