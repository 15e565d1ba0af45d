import ControllerOracles
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
            let pieces = [
                "a", "A", "b", "B", "z", "Z", "é", "É", "日", " ", "-", "_", "0", "9", "~",
                "ß", "ﬃ", "\u{301}", "aa", "AB",
            ]
            return (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
        }

        /// Sort descriptors, and the same order written out by hand for the server (the oracle).
        static let orders: [(descriptors: [ColumnSortDescriptor], orderBy: String)] = [
            ([ColumnSortDescriptor(key: "word")], #"word COLLATE "C" NULLS FIRST, id"#),
            (
                [ColumnSortDescriptor(key: "word", collation: .caseInsensitive)],
                #"lower(word COLLATE "C") NULLS FIRST, id"#
            ),
            (
                [ColumnSortDescriptor(key: "word", ascending: false, collation: .caseInsensitive)],
                #"lower(word COLLATE "C") DESC NULLS LAST, id"#
            ),
            ([ColumnSortDescriptor(key: "count", ascending: false)], "count DESC NULLS LAST, id"),
            ([ColumnSortDescriptor(key: "ratio")], "ratio NULLS FIRST, id"),
            ([ColumnSortDescriptor(key: "data", ascending: false)], "data DESC NULLS LAST, id"),
            ([ColumnSortDescriptor(key: "flag")], "flag NULLS FIRST, id"),
            (
                [
                    ColumnSortDescriptor(key: "zone", collation: .caseInsensitive),
                    ColumnSortDescriptor(key: "count", ascending: false),
                    ColumnSortDescriptor(key: "word", collation: .caseInsensitive),
                ],
                #"lower(zone COLLATE "C") NULLS FIRST, count DESC NULLS LAST, lower(word COLLATE "C") NULLS FIRST, id"#
            ),
        ]

        /// Rows inserted in random order, a few per transaction, each placed by the controller
        /// by its key alone: the controller's order must be the server's `ORDER BY`.
        @Test(arguments: 0..<orders.count)
        func inMemoryOrderEqualsTheServersOrderBy(order: Int) throws {
            let (descriptors, orderBy) = Self.orders[order]
            print("PostgreSQLOrderTests seed \(Self.seed)")
            var random = SplitMix64(seed: Self.seed)
            let conninfo = try freshDatabase()
            let connection = try PostgreSQLConnection(conninfo)
            try connection.execute(
                """
                CREATE TABLE thing (id bigint PRIMARY KEY, zone text, word text, count bigint, ratio double precision,
                                    data bytea, flag boolean)
                """)
            try PostgreSQLChangeFeed.install(on: "thing", keyColumn: "id", in: connection)
            let controller = FetchedResultsController<PostgreSQLRow>(
                fetchRequest: TableFetchRequest(table: "thing", sortDescriptors: descriptors), conninfo: conninfo)
            let recorder = CallbackLog<PostgreSQLRow>()
            controller.delegate = recorder
            try controller.performFetch()
            let integers: [Int64] = [0, 1, -1, Int64.max, Int64.min, 1 << 53, (1 << 53) + 1, -(1 << 53) - 1]
            let reals: [Double] = [
                0, -0.0, 0.5, -0.5, 1e300, -1e300, 1e-300, .infinity, -.infinity, 2.5, 9007199254740992,
            ]
            for id in (1...400).shuffled(using: &random) {
                func maybe<Value>(_ value: Value) -> Value? { Int.random(in: 0..<8, using: &random) == 0 ? nil : value }
                let bytes = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
                try connection.execute(
                    "INSERT INTO thing VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    [
                        id,
                        maybe(["Africa", "africa", "Asia", "Europe", "EUROPE"].randomElement(using: &random)!),
                        maybe(Self.randomText(&random)),
                        maybe(integers.randomElement(using: &random)! &+ Int64.random(in: -2...2, using: &random)),
                        maybe(reals.randomElement(using: &random)! * Double(Int.random(in: 1...3, using: &random))),
                        maybe(Data(bytes)),
                        maybe(Bool.random(using: &random)),
                    ])
                if id % 7 == 0 { try controller.processPendingChanges() }
            }
            try controller.processPendingChanges()
            #expect(recorder.errors.isEmpty, "\(recorder.errors)")
            let serverOrder = try connection.execute("SELECT id FROM thing ORDER BY \(orderBy)").rows.map {
                Int64($0[0]!)!
            }
            let memoryOrder = try controller.fetchedObjects!.map { try $0.decode(Int64.self, forColumn: "id") }
            let firstDifference = zip(memoryOrder, serverOrder).enumerated().first { $0.element.0 != $0.element.1 }
            #expect(memoryOrder == serverOrder, "first difference at \(firstDifference?.offset ?? -1)")
        }

        /// A sort key on a column whose order the controller cannot keep (a timestamp) is refused
        /// with the column's type, not followed wrongly.
        @Test func aSortKeyOfAnUnsupportedTypeIsRefused() throws {
            let conninfo = try freshDatabase()
            try PostgreSQLConnection(conninfo).execute("CREATE TABLE event (id bigint PRIMARY KEY, at timestamptz)")
            let controller = FetchedResultsController<PostgreSQLRow>(
                fetchRequest: TableFetchRequest(table: "event", sortDescriptors: [.ascending("at")]), conninfo: conninfo
            )
            #expect(throws: FetchedResultsError.unsupportedSortType(key: "at", type: "timestamptz")) {
                try controller.performFetch()
            }
        }
    }
}
