import Foundation
import GRDB

/// Compares database values exactly as SQLite's `ORDER BY` does.
///
/// SQLite orders NULL < numbers (integers and reals compared by value) < text (by collation) <
/// blobs (by bytes), and compares text as UTF-8 bytes — not as Swift `String`s, whose Unicode
/// ordering differs (for example "Z" < "a" in SQLite, precomposed vs decomposed accents).
enum SQLiteOrdering {
    /// -1, 0 or 1 as `lhs` sorts before, with, or after `rhs` in ascending order.
    static func compare(_ lhs: DatabaseValue, _ rhs: DatabaseValue, collation: Collation) -> Int {
        let (lhsClass, rhsClass) = (storageClassRank(lhs), storageClassRank(rhs))
        if lhsClass != rhsClass { return lhsClass < rhsClass ? -1 : 1 }
        switch (lhs.storage, rhs.storage) {
        case (.null, .null):
            return 0
        case let (.int64(a), .int64(b)):
            return a < b ? -1 : (a > b ? 1 : 0)
        case let (.double(a), .double(b)):
            return a < b ? -1 : (a > b ? 1 : 0)
        case let (.int64(a), .double(b)):
            return compareInteger(a, toReal: b)
        case let (.double(a), .int64(b)):
            return -compareInteger(b, toReal: a)
        case let (.string(a), .string(b)):
            return compareText(a, b, collation: collation)
        case let (.blob(a), .blob(b)):
            return compareBytes(a, b, fold: false)
        default:
            return 0
        }
    }

    /// Compares two full sort keys (one value per descriptor, then the row id).
    static func compare(
        _ lhs: [DatabaseValue], _ lhsRowID: Int64,
        _ rhs: [DatabaseValue], _ rhsRowID: Int64,
        descriptors: [ColumnSortDescriptor]
    ) -> Int {
        for (index, descriptor) in descriptors.enumerated() {
            let order = compare(lhs[index], rhs[index], collation: descriptor.collation)
            if order != 0 { return descriptor.ascending ? order : -order }
        }
        return lhsRowID < rhsRowID ? -1 : (lhsRowID > rhsRowID ? 1 : 0)
    }

    private static func storageClassRank(_ value: DatabaseValue) -> Int {
        switch value.storage {
        case .null: return 0
        case .int64, .double: return 1
        case .string: return 2
        case .blob: return 3
        }
    }

    /// SQLite compares an integer with a real by value, exactly (no rounding of large integers).
    private static func compareInteger(_ integer: Int64, toReal real: Double) -> Int {
        if real.isNaN { return 1 }
        if real >= 9223372036854775808.0 { return -1 }
        if real < -9223372036854775808.0 { return 1 }
        let truncated = Int64(real.rounded(.down))
        if integer < truncated { return -1 }
        if integer > truncated { return 1 }
        return Double(truncated) < real ? -1 : 0
    }

    static func compareText(_ a: String, _ b: String, collation: Collation) -> Int {
        var a = a, b = b
        return a.withUTF8 { aBytes in
            b.withUTF8 { bBytes in compareBytes(aBytes, bBytes, fold: collation == .noCase) }
        }
    }

    private static func compareBytes<C: Collection<UInt8>>(_ a: C, _ b: C, fold: Bool) -> Int {
        var (i, j) = (a.startIndex, b.startIndex)
        while i != a.endIndex && j != b.endIndex {
            var (x, y) = (a[i], b[j])
            if fold {
                if x >= 0x41 && x <= 0x5A { x += 0x20 }
                if y >= 0x41 && y <= 0x5A { y += 0x20 }
            }
            if x != y { return x < y ? -1 : 1 }
            a.formIndex(after: &i)
            b.formIndex(after: &j)
        }
        if i == a.endIndex && j == b.endIndex { return 0 }
        return i == a.endIndex ? -1 : 1
    }

    private static func compareBytes(_ a: Data, _ b: Data, fold: Bool) -> Int {
        compareBytes(Array(a), Array(b), fold: fold)
    }

    /// A value that is equal for exactly the values that compare equal under `collation`:
    /// used to tell whether two rows belong to the same section.
    static func groupingKey(_ value: DatabaseValue, collation: Collation) -> DatabaseValue {
        guard collation == .noCase, case let .string(text) = value.storage else { return value }
        return String(decoding: text.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 + 0x20 : $0 }, as: UTF8.self)
            .databaseValue
    }
}
