import FetchedResults
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// The in-memory order (the core's byte keys) equals the server's `ORDER BY`, on random
    /// values of every type, NULLs, case and non-ASCII text included: the property the
    /// controller's incremental path rests on.
    @Suite struct PostgreSQLOrderTests {
        static let seed: UInt64 = 20261123

        static func randomText(_ random: inout SplitMix64) -> String {
            let pieces = ["a", "A", "b", "B", "z", "Z", "é", "É", "日", " ", "-", "_", "0", "9", "~", "ß", "ﬃ", "\u{301}", "aa", "AB"]
            return (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }

        @Test(arguments: [
            [PostgreSQLSortDescriptor(column: "word", type: .text)],
            [PostgreSQLSortDescriptor(column: "word", type: .text, caseInsensitive: true)],
            [PostgreSQLSortDescriptor(column: "word", type: .text, ascending: false, caseInsensitive: true)],
            [PostgreSQLSortDescriptor(column: "count", type: .integer, ascending: false)],
            [PostgreSQLSortDescriptor(column: "ratio", type: .real)],
            [PostgreSQLSortDescriptor(column: "data", type: .bytea, ascending: false)],
            [PostgreSQLSortDescriptor(column: "zone", type: .text, caseInsensitive: true),
             PostgreSQLSortDescriptor(column: "count", type: .integer, ascending: false),
             PostgreSQLSortDescriptor(column: "word", type: .text, caseInsensitive: true)],
        ])
        func inMemoryOrderEqualsTheServersOrderBy(descriptors: [PostgreSQLSortDescriptor]) throws {
            print("PostgreSQLOrderTests seed \(Self.seed)")
            var random = SplitMix64(seed: Self.seed)
            let connection = try PostgreSQLConnection(try freshDatabase())
            try connection.execute("CREATE TABLE thing (id bigint PRIMARY KEY, zone text, word text, count bigint, ratio double precision, data bytea)")
            let integers: [Int64] = [0, 1, -1, Int64.max, Int64.min, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1]
            let reals: [Double] = [0, -0.0, 0.5, -0.5, 1e300, -1e300, 1e-300, .infinity, -.infinity, 2.5, 9007199254740993]
            for id in 1...400 {
                func maybe(_ value: String) -> String? { Int.random(in: 0..<8, using: &random) == 0 ? nil : value }
                let bytes = (0..<Int.random(in: 0...3, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                try connection.execute(
                    "INSERT INTO thing VALUES ($1, $2, $3, $4, $5, $6::bytea)",
                    [String(id), maybe(["Africa", "africa", "Asia", "Europe", "EUROPE"].randomElement(using: &random)!),
                     maybe(Self.randomText(&random)), maybe(String(integers.randomElement(using: &random)! &+ Int64.random(in: -2...2, using: &random))),
                     maybe(String(reals.randomElement(using: &random)! * Double(Int.random(in: 1...3, using: &random)))),
                     maybe("\\x" + bytes.map { String(format: "%02x", $0) }.joined())])
            }
            let columns = descriptors.map { PostgreSQLChangeFeed.quotedName($0.column) }.joined(separator: ", ")
            let rows = try connection.execute(
                "SELECT id, \(columns) FROM thing ORDER BY \(PostgreSQLSortDescriptor.orderingSQL(descriptors, keyColumn: "id"))").rows
            let serverOrder = rows.map { Int64($0[0]!)! }
            let keyed = rows.map { row -> (id: Int64, key: [UInt8]) in
                var key: [UInt8] = []
                let id = Int64(row[0]!)!
                PostgreSQLSortDescriptor.appendKey(Array(row.dropFirst()), rowID: id, descriptors: descriptors, to: &key)
                return (id, key)
            }
            let memoryOrder = keyed.sorted { a, b in
                a.key.withUnsafeBufferPointer { x in b.key.withUnsafeBufferPointer { y in SortKey.compare(x, y) < 0 } }
            }.map(\.id)
            #expect(memoryOrder == serverOrder, "first difference at \(zip(memoryOrder, serverOrder).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
        }
    }
}
