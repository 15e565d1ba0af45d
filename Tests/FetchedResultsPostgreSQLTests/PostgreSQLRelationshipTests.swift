import ControllerOracles
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// What only PostgreSQL's relationships have to refuse: a key path through no declared
    /// relationship (SQLite finds one from a foreign key), a related table without its feed.
    /// Relationships on both stores are tested in ``RelationshipOracleTests``.
    @Suite struct PostgreSQLRelationshipTests {
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
            let controller = FetchedResultsController<PostgreSQLRow>(
                fetchRequest: RelatedTables.request(.postgresql), conninfo: conninfo)
            let recorder = CallbackLog<PostgreSQLRow>()
            controller.delegate = recorder
            #expect(
                throws: FetchedResultsError.changeFeedMissing(
                    table: "zone",
                    installation: "PostgreSQLChangeFeed.install(on: \"zone\", keyColumn: …, in: connection)")
            ) { try controller.performFetch() }
        }
    }
}
