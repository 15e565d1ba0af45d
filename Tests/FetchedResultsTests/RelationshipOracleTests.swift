import ControllerOracles
import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

/// Random writes to items and to the buckets they refer to, from every kind of writer; after
/// each step the controller, sectioned by `bucket.name` and refreshing on `bucket.color`, must
/// equal a fresh join by SQLite, and its callbacks must replay onto the old state.
@Suite struct RelationshipOracleTests {
    struct Configuration: Sendable, CustomTestStringConvertible {
        let label: String
        let writer: TransactionWriter.Kind
        var batchSize = 0
        var steps = 400
        var testDescription: String { label }
    }

    static let configurations: [Configuration] = [
        .init(label: "controller's pool", writer: .controllersPool),
        .init(label: "other connection, pruning", writer: .otherConnection),
        .init(label: "other process, pruning", writer: .otherProcess),
        .init(label: "other process, batches of 3", writer: .otherProcess, batchSize: 3),
    ]

    static let oracleSQL = """
        SELECT content.*, b.name AS "bucket.name", b.color AS "bucket.color"
        FROM content LEFT JOIN bucket AS b ON b.id = content.bucketId
        WHERE created % 5 <> 0
        ORDER BY b.name COLLATE NOCASE, created DESC, content.id
        """

    @Test(arguments: configurations)
    func everyStepMatchesAFreshJoin(configuration: Configuration) throws {
        let seed = randomisedTestSeed(20261122, for: "RelationshipOracleTests[\(configuration.label)]")
        var random = SplitMix64(seed: seed)
        let (pool, path) = try makeBucketDatabase()
        let writer = try TransactionWriter(configuration.writer, pool: pool, path: path)
        let request = TableFetchRequest(
            table: "content", predicate: "created % 5 <> 0",
            sortDescriptors: [
                ColumnSortDescriptor(key: "bucket.name", collation: .caseInsensitive),
                ColumnSortDescriptor(key: "created", ascending: false),
            ],
            fetchBatchSize: configuration.batchSize,
            relationships: [ToOneRelationship("bucket", foreignKey: "bucketId", destinationTable: "bucket")],
            relationshipKeyPathsForRefreshing: ["bucket.color"])
        let controller = FetchedResultsController<Content>(
            fetchRequest: request, database: pool, sectionNameKeyPath: "bucket.name")
        let recorder = CallbackLog<Content>()
        controller.delegate = recorder
        try controller.performFetch()

        func oracle() throws -> SectionedState<Content> {
            let rows = try pool.read { db in try Row.fetchAll(db, sql: Self.oracleSQL) }
            return SectionedState(
                ordered: rows.map { ($0["id"], $0["bucket.name"], Content(row: $0)) }, sectioned: true)
        }
        let stepsWithCallbacks = try runCheckedSteps(
            configuration.steps, controller: controller, recorder: recorder, writer: writer, pruneEvery: 61,
            seed: seed, random: &random, id: \.id,
            transaction: { random in
                let contents = try pool.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM content") }
                return RelationshipWorkload.transaction(contentIDs: contents, random: &random)
            }, oracle: oracle)
        print(
            "RelationshipOracleTests[\(configuration.label)]: \(configuration.steps) steps, "
                + "\(stepsWithCallbacks) with callbacks")
        #expect(stepsWithCallbacks > configuration.steps / 5, "the workload must change the results often")
    }
}
