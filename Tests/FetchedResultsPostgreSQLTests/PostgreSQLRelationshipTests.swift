import ControllerOracles
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// Key paths across a to-one relationship on PostgreSQL: items sorted and sectioned by
    /// their zone's name, refreshed when their zone's code changes; random writes to both tables
    /// (zones renamed, added, deleted while items still refer to them) checked after every step
    /// against the server's own join.
    @Suite struct PostgreSQLRelationshipTests {
        struct ZonedItem: PostgreSQLRecord, Equatable {
            var id: Int64
            var zoneID: Int64?
            var zoneName: String?
            var zoneCode: String?
            var score: Int64?
            var name: String

            struct Undecodable: Error {}

            init(row: PostgreSQLRow) throws {
                guard let id = row["id"].flatMap(Int64.init), let name = row["name"] else { throw Undecodable() }
                (self.id, self.name) = (id, name)
                zoneID = row["zone_id"].flatMap(Int64.init)
                zoneName = row["zone.name"]
                zoneCode = row["zone.code"]
                score = row["score"].flatMap(Int64.init)
            }
        }

        static let request = pgRequest(
            table: "item",
            sortDescriptors: [
                ColumnSortDescriptor(key: "zone.name", collation: .caseInsensitive),
                ColumnSortDescriptor(key: "score", ascending: false),
                ColumnSortDescriptor(key: "name"),
            ],
            predicate: "visible = $1", arguments: [1],
            relationships: [ToOneRelationship("zone", foreignKey: "zone_id", destinationTable: "zone")],
            relationshipKeyPathsForRefreshing: ["zone.code"])

        static let oracleSQL = """
            SELECT item.*, zone.name AS "zone.name", zone.code AS "zone.code"
            FROM item LEFT JOIN zone ON zone.id = item.zone_id
            WHERE item.visible = 1
            ORDER BY lower(zone.name COLLATE "C") NULLS FIRST, item.score DESC NULLS LAST,
                     item.name COLLATE "C", item.id
            """

        static func oracle(_ connection: PostgreSQLConnection) throws -> SectionedState<ZonedItem> {
            let result = try connection.execute(oracleSQL)
            let items = try result.rows.map { try ZonedItem(row: PostgreSQLRow(columns: result.columns, values: $0)) }
            return SectionedState(ordered: items.map { ($0.id, $0.zoneName, $0) }, sectioned: true)
        }

        static let zoneNames = ["Africa", "africa", "Asia", "Europe", "日本", "Zone"]

        static func transaction(items: [Int64], zones: [Int64], random: inout SplitMix64) -> [String] {
            var statements: [String] = []
            let nextItem = (items.max() ?? 0) + 1, nextZone = (zones.max() ?? 0) + 1
            func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
            // Sometimes none.
            let zone = { (random: inout SplitMix64) in Int64.random(in: 1...(nextZone + 1), using: &random) }
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let item = items.randomElement(using: &random), existingZone = zones.randomElement(using: &random)
                switch (Int.random(in: 0..<11, using: &random), item, existingZone) {
                case (0...1, _, _), (_, nil, _):
                    statements.append(
                        "INSERT INTO item (id, zone_id, score, name) VALUES (\(nextItem + Int64(statements.count)), "
                            + "\(zone(&random)), \(Int.random(in: 0...4, using: &random)), "
                            + "\(literal(["a", "B", "c"].randomElement(using: &random)!)))")
                case (2, let item?, _):
                    statements.append("UPDATE item SET zone_id = \(zone(&random)) WHERE id = \(item)")
                case (3, let item?, _): statements.append("UPDATE item SET score = score + 1 WHERE id = \(item)")
                case (4, let item?, _): statements.append("UPDATE item SET visible = 1 - visible WHERE id = \(item)")
                case (5, let item?, _): statements.append("DELETE FROM item WHERE id = \(item)")
                case (6, _, let zone?):
                    statements.append(
                        "UPDATE zone SET name = \(literal(zoneNames.randomElement(using: &random)!)) WHERE id = \(zone)"
                    )
                case (7, _, let zone?): statements.append("UPDATE zone SET code = code || 'x' WHERE id = \(zone)")
                case (8, _, let zone?): statements.append("DELETE FROM zone WHERE id = \(zone)")
                case (9, _, _):
                    statements.append(
                        "INSERT INTO zone (id, name, code) VALUES (\(nextZone + Int64(statements.count)), "
                            + "\(literal(zoneNames.randomElement(using: &random)!)), 'c') ON CONFLICT DO NOTHING")
                default: statements.append("UPDATE zone SET name = name")
                }
            }
            return statements
        }

        @Test(arguments: [0, 3])
        func everyStepMatchesTheServersJoin(batchSize: Int) throws {
            let seed = randomisedTestSeed(20261123, for: "PostgreSQLRelationshipTests[batches \(batchSize)]")
            var random = SplitMix64(seed: seed)
            let conninfo = try freshDatabase()
            let writer = try PostgreSQLConnection(conninfo)
            try writer.execute("CREATE TABLE zone (id bigint PRIMARY KEY, name text, code text NOT NULL DEFAULT 'c')")
            try writer.execute(
                """
                CREATE TABLE item (id bigint PRIMARY KEY, zone_id bigint, score bigint, name text NOT NULL,
                                   visible integer NOT NULL DEFAULT 1)
                """)
            try writer.execute("INSERT INTO zone (id, name) VALUES (1, 'Africa'), (2, 'Asia'), (3, 'asia'), (4, NULL)")
            try PostgreSQLChangeFeed.install(on: "item", keyColumn: "id", in: writer)
            try PostgreSQLChangeFeed.install(on: "zone", keyColumn: "id", in: writer)

            var request = Self.request
            request.fetchBatchSize = batchSize
            let controller = FetchedResultsController<ZonedItem>(
                fetchRequest: request, conninfo: conninfo, sectionNameKeyPath: "zone.name")
            let recorder = CallbackLog<ZonedItem>()
            controller.delegate = recorder
            try controller.performFetch()

            var state = try Self.oracle(writer)
            var stepsWithCallbacks = 0
            for step in 0..<250 {
                recorder.reset()
                let items = try writer.execute("SELECT id FROM item ORDER BY id").rows.compactMap {
                    $0[0].flatMap(Int64.init)
                }
                let zones = try writer.execute("SELECT id FROM zone ORDER BY id").rows.compactMap {
                    $0[0].flatMap(Int64.init)
                }
                try writer.execute("BEGIN")
                for statement in Self.transaction(items: items, zones: zones, random: &random) {
                    try writer.execute(statement)
                }
                try writer.execute("COMMIT")
                if step % 61 == 60 {
                    try PostgreSQLChangeFeed.prune(before: PostgreSQLChangeFeed.currentPosition(in: writer), in: writer)
                }
                try controller.processPendingChanges()
                let newState = try Self.oracle(writer)
                let controllerState = SectionedState<ZonedItem>(
                    sections: try controller.sections!.map { ($0.name, $0.objects.map(\.id)) },
                    content: Dictionary(uniqueKeysWithValues: try controller.fetchedObjects!.map { ($0.id, $0) }))
                if try checkStep(
                    recorder, old: state, new: newState, controllerState: controllerState, rolledBack: false,
                    batched: batchSize > 0, context: "seed \(seed), step \(step)")
                {
                    stepsWithCallbacks += 1
                }
                state = newState
            }
            print("PostgreSQLRelationshipTests[batches \(batchSize)]: 250 steps, \(stepsWithCallbacks) with callbacks")
            #expect(stepsWithCallbacks > 50)
        }

        @Test func aKeyPathThroughNoDeclaredRelationshipIsRefused() throws {
            let (conninfo, _) = try standingsDatabase()
            let request = pgRequest(table: "item", sortDescriptors: [ColumnSortDescriptor(key: "team.name")])
            let controller = FetchedResultsController<PostgreSQLRow>(fetchRequest: request, conninfo: conninfo)
            #expect(throws: FetchedResultsError.unknownRelationship(keyPath: "team.name", table: "item")) {
                try controller.performFetch()
            }
        }

        @Test func aRelatedTableWithoutItsFeedIsRefusedWhenTracking() throws {
            let conninfo = try freshDatabase()
            let writer = try PostgreSQLConnection(conninfo)
            try writer.execute("CREATE TABLE zone (id bigint PRIMARY KEY, name text, code text)")
            try writer.execute(
                "CREATE TABLE item (id bigint PRIMARY KEY, zone_id bigint, score bigint, "
                    + "name text NOT NULL, visible integer)")
            try PostgreSQLChangeFeed.install(on: "item", keyColumn: "id", in: writer)
            let controller = FetchedResultsController<PostgreSQLRow>(fetchRequest: Self.request, conninfo: conninfo)
            let recorder = CallbackLog<PostgreSQLRow>()
            controller.delegate = recorder
            #expect(
                throws: FetchedResultsError.changeFeedMissing(
                    table: "zone",
                    installation: "PostgreSQLChangeFeed.install(on: \"zone\", keyColumn: …, in: connection)")
            ) { try controller.performFetch() }
        }

        /// A cache over a relationship catches up with related rows changed while no controller ran.
        @Test func aCacheCatchesUpWithChangedRelatedRows() throws {
            let conninfo = try freshDatabase()
            let writer = try PostgreSQLConnection(conninfo)
            try writer.execute("CREATE TABLE zone (id bigint PRIMARY KEY, name text, code text NOT NULL DEFAULT 'c')")
            try writer.execute(
                "CREATE TABLE item (id bigint PRIMARY KEY, zone_id bigint, score bigint, "
                    + "name text NOT NULL, visible integer NOT NULL DEFAULT 1)")
            try writer.execute("INSERT INTO zone (id, name) VALUES (1, 'Africa'), (2, 'Asia')")
            try writer.execute(
                "INSERT INTO item (id, zone_id, score, name) "
                    + "SELECT i, 1 + i % 2, i % 5, 'n' || i FROM generate_series(1, 40) AS i")
            try PostgreSQLChangeFeed.install(on: "item", keyColumn: "id", in: writer)
            try PostgreSQLChangeFeed.install(on: "zone", keyColumn: "id", in: writer)
            let folder = TemporaryDirectory()
            func launch() throws -> FetchedResultsController<ZonedItem> {
                let controller = FetchedResultsController<ZonedItem>(
                    fetchRequest: Self.request, conninfo: conninfo, sectionNameKeyPath: "zone.name", cacheName: "zoned",
                    cacheDirectory: URL(fileURLWithPath: folder.path))
                let recorder = CallbackLog<ZonedItem>()
                controller.delegate = recorder
                try controller.performFetch()
                return controller
            }
            try launch().saveCache()
            // Only related rows change: the items that refer to them must move and be re-read.
            try writer.execute("UPDATE zone SET name = 'Zulu' WHERE id = 1")
            try writer.execute("UPDATE zone SET code = 'new' WHERE id = 2")
            let later = try launch()
            #expect(later.lastFetchSource == .cache)
            let state = SectionedState<ZonedItem>(
                sections: try later.sections!.map { ($0.name, $0.objects.map(\.id)) },
                content: Dictionary(uniqueKeysWithValues: try later.fetchedObjects!.map { ($0.id, $0) }))
            #expect(state == (try Self.oracle(writer)))
            #expect(later.sectionName(at: 1) == "Zulu")
        }
    }
}
