import TestSupport
@testable import FetchedResults
import Foundation
import GRDB
import Testing

/// The in-memory order must be exactly SQLite's: checked against SQLite itself on random values.
@Suite struct SQLiteOrderingTests {
    static let texts = ["", "a", "A", "b", "B", "Z", "z", "é", "É", "e\u{301}", "ß", "日本", "Ωmega", "a\u{0}b", "ab", "aB", "Ab ", "10", "9"]

    static func randomValue(_ random: inout SplitMix64) -> DatabaseValue {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return .null
        case 1: return Int64.random(in: -3...3, using: &random).databaseValue
        case 2: return [Int64.max, Int64.min, 9007199254740993].randomElement(using: &random)!.databaseValue
        case 3: return [-0.5, 2.5, 3.0, 9007199254740992.0, 9.3e18, -1e300].randomElement(using: &random)!.databaseValue
        case 4: return Data([UInt8.random(in: 0...3, using: &random)]).databaseValue
        default: return texts.randomElement(using: &random)!.databaseValue
        }
    }

    @Test(arguments: [Collation.binary, .noCase])
    func comparatorSortsExactlyLikeOrderBy(collation: Collation) throws {
        var random = SplitMix64(seed: 42)
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE v (id INTEGER PRIMARY KEY, x)")
            for _ in 0..<600 { try db.execute(sql: "INSERT INTO v (x) VALUES (?)", arguments: [Self.randomValue(&random)]) }
        }
        let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT id, x FROM v") }
        let expected = try queue.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM v ORDER BY x COLLATE \(collation.rawValue), id")
        }
        let sorted = rows.sorted { a, b in
            SQLiteOrdering.compare([a["x"]], a["id"], [b["x"]], b["id"], descriptors: [ColumnSortDescriptor(key: "x", collation: collation)]) < 0
        }
        #expect(sorted.map { $0["id"] as Int64 } == expected)
    }
}
