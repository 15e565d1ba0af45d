import FetchedResults
import Foundation
import GRDB
import TestSupport
import Testing

@testable import FetchedResults
@testable import FetchedResultsSQLite

/// The in-memory order must be exactly SQLite's: encoded keys, compared as bytes, are checked
/// against SQLite's own ORDER BY on random values of every storage class.
@Suite struct SortKeyEncodingTests {
    static let texts = [
        "", "a", "A", "b", "B", "Z", "z", "é", "É", "e\u{301}", "ß", "日本", "Ωmega",
        "a\u{0}b", "a\u{0}", "ab", "aB", "Ab ", "10", "9",
    ]

    static func randomValue(_ random: inout SplitMix64) -> DatabaseValue {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return .null
        case 1: return Int64.random(in: -3...3, using: &random).databaseValue
        case 2:
            return [Int64.max, Int64.max - 1, Int64.min, 9007199254740993, -9007199254740993].randomElement(
                using: &random)!.databaseValue
        case 3:
            return [-0.5, 2.5, 3.0, -0.0, 9007199254740992.0, 9.223372036854775807e18, -9.3e18, -1e300, .infinity]
                .randomElement(using: &random)!.databaseValue
        case 4:
            return Data(
                (0..<Int.random(in: 0...2, using: &random)).map { _ in [0, 1, 0xFF].randomElement(using: &random)! }
            ).databaseValue
        default: return texts.randomElement(using: &random)!.databaseValue
        }
    }

    /// A table `v` of `rows` rows whose columns `x`, `y`, `z` hold random values of every
    /// storage class.
    static func randomTable(rows: Int, seed: UInt64) throws -> DatabaseQueue {
        print("SortKeyEncodingTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE v (id INTEGER PRIMARY KEY, x, y, z)")
            for _ in 0..<rows {
                try db.execute(
                    sql: "INSERT INTO v (x, y, z) VALUES (?, ?, ?)",
                    arguments: [Self.randomValue(&random), Self.randomValue(&random), Self.randomValue(&random)])
            }
        }
        return queue
    }

    @Test(arguments: [ColumnSortDescriptor.Collation.binary, .caseInsensitive])
    func keysSortExactlyLikeOrderBy(collation: ColumnSortDescriptor.Collation) throws {
        let queue = try Self.randomTable(rows: 800, seed: 17)
        for descending in [[false, false, false], [true, false, true], [false, true, false]] {
            let descriptors = zip(["x", "y", "z"], descending).map {
                ColumnSortDescriptor(key: $0, ascending: !$1, collation: collation)
            }
            let request = TableFetchRequest(table: "v", sortDescriptors: descriptors)
            let encoding = SortKeyEncoding(descriptors: descriptors)
            let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT id, x, y, z FROM v") }
            let expected = try queue.read { db in
                try Int64.fetchAll(db, sql: "SELECT id FROM v ORDER BY \(request.sqliteOrderBySQL)")
            }
            let keyed = rows.map { row in
                (id: row["id"] as Int64, key: encoding.key([row["x"], row["y"], row["z"]], rowID: row["id"]))
            }
            let sorted = keyed.sorted { a, b in
                a.key.withUnsafeBufferPointer { x in b.key.withUnsafeBufferPointer { y in SortKey.compare(x, y) < 0 } }
            }
            #expect(sorted.map(\.id) == expected, "descending \(descending)")
        }
    }

    /// Row ids end keys in as few bytes as they need: byte order must still be numeric order,
    /// across lengths and signs, and no id's bytes may start another's.
    @Test func rowIDsSortNumericallyInFewBytes() {
        let seed = UInt64(29)
        print("rowIDsSortNumericallyInFewBytes seed \(seed)")
        var random = SplitMix64(seed: seed)
        var edges: [Int64] = [Int64.min, Int64.min + 1, -65537, -65536, -257, -256, -255, -2, -1, 0, 1, 255, 256]
        edges += [65535, 65536, 16_777_215, 16_777_216, Int64(UInt32.max), Int64.max - 1, Int64.max]
        let ids =
            edges
            + (0..<400).map { _ in
                Int64.random(in: .min ... .max, using: &random) >> Int.random(in: 0..<64, using: &random)
            }
        func encoded(_ id: Int64) -> [UInt8] {
            var bytes: [UInt8] = []
            SortKey.appendRowID(id, to: &bytes)
            return bytes
        }
        #expect(encoded(1_000_000).count == 4)
        #expect(encoded(0).count == 1 && encoded(-1).count == 1)
        for a in ids {
            for b in ids.prefix(60) {
                let (x, y) = (encoded(a), encoded(b))
                let order = SortKey.compare(x, y)
                #expect((order < 0) == (a < b) && (order == 0) == (a == b), "\(a) against \(b)")
                if a != b { #expect(!x.starts(with: y) && !y.starts(with: x), "\(a) against \(b)") }
            }
        }
    }

    /// The first component is what groups rows into sections: equal exactly when SQLite's
    /// `=` under the collation says the values are equal.
    @Test func firstComponentGroupsLikeSQLiteEquality() throws {
        var random = SplitMix64(seed: 5)
        let queue = try DatabaseQueue()
        // Round-tripped through SQLite, which keeps text only up to an embedded NUL when bound.
        let values = try queue.read { db in
            try (0..<300).map { _ in
                try DatabaseValue.fetchOne(db, sql: "SELECT ?", arguments: [Self.randomValue(&random)])!
            }
        }
        for ascending in [true, false] {
            let encoding = SortKeyEncoding(descriptors: [
                ColumnSortDescriptor(key: "x", ascending: ascending, collation: .caseInsensitive)
            ])
            let components = values.map { value in
                let key = encoding.key([value, .null], rowID: 1)
                let shape = ResultsShape(fetchOffset: 0, fetchLimit: 0, isSectioned: true, firstKeyAscending: ascending)
                return Array(shape.firstComponent(of: key))
            }
            for _ in 0..<2000 {
                let (i, j) = (
                    Int.random(in: 0..<values.count, using: &random), Int.random(in: 0..<values.count, using: &random)
                )
                let equal = try queue.read { db in
                    try Bool.fetchOne(db, sql: "SELECT (? IS ? COLLATE NOCASE)", arguments: [values[i], values[j]])!
                }
                #expect((components[i] == components[j]) == equal, "\(values[i]) vs \(values[j])")
            }
        }
    }

    /// A read ahead copies a row's sort values off the statement and makes the key later: the
    /// copy must give the same key, and the same values, as the statement read in place and as
    /// GRDB's values of the row — for every storage class, text with a NUL or invalid UTF-8.
    @Test func copiedRowsKeyAndReadLikeTheStatement() throws {
        let queue = try Self.randomTable(rows: 500, seed: 41)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO v (x, y, z) VALUES (CAST(x'61C3' AS TEXT), CAST(x'FF00' AS TEXT), 'a')")
        }
        let descriptors = [
            ColumnSortDescriptor(key: "x", collation: .caseInsensitive),
            ColumnSortDescriptor(key: "y", ascending: false), ColumnSortDescriptor(key: "z"),
        ]
        let encoding = SortKeyEncoding(descriptors: descriptors)
        var copied = CopiedSortRows(columns: 3)
        var inPlace: [(key: [UInt8], values: [DatabaseValue])] = []
        try queue.read { db in
            let statement = try db.makeStatement(sql: "SELECT id, x, y, z FROM v ORDER BY id")
            let cursor = try Row.fetchCursor(statement)
            while let row = try cursor.next() {
                let columns = StatementSortColumns(statement: statement.sqliteStatement, first: 1)
                let rowID: Int64 = row[0]
                var key: [UInt8] = []
                encoding.append(columns, rowID: rowID, to: &key)
                let values: [DatabaseValue] = [row[1], row[2], row[3]]
                #expect(key == encoding.key(values, rowID: rowID), "row \(rowID): \(values)")
                #expect((0..<3).map(columns.databaseValue) == values, "row \(rowID)")
                inPlace.append((key, values))
                copied.append(columns, rowID: rowID)
            }
        }
        var index = 0
        copied.forEachRow { row, rowID in
            var key: [UInt8] = []
            encoding.append(row, rowID: rowID, to: &key)
            #expect(key == inPlace[index].key, "row \(rowID)")
            #expect((0..<3).map(row.databaseValue) == inPlace[index].values, "row \(rowID)")
            index += 1
        }
        #expect(index == 501 && copied.count == 501)
    }
}
