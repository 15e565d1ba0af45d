import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

/// Every test that talks to the server, one at a time: snapshots' `xmin` is cluster-wide, so a
/// transaction another test holds open would change what pruning may delete.
@Suite(.serialized) enum PostgreSQLServerTests {}

/// A new, empty database in the test run's throw-away cluster, and its connection string.
func freshDatabase() throws -> String {
    let cluster = try TemporaryCluster.shared.get()
    let name = "test_" + UUID().uuidString.prefix(8).lowercased()
    try PostgreSQLConnection(cluster.connectionString).execute("CREATE DATABASE \(name)")
    return "host=\(cluster.socketFolder) port=\(cluster.port) dbname=\(name) user=postgres"
}

/// A database with `item(id bigserial PRIMARY KEY, name text)` and the change feed on it.
func itemDatabase() throws -> (conninfo: String, connection: PostgreSQLConnection) {
    let conninfo = try freshDatabase()
    let connection = try PostgreSQLConnection(conninfo)
    try connection.execute("CREATE TABLE item (id bigserial PRIMARY KEY, name text NOT NULL)")
    try PostgreSQLChangeFeed.install(on: "item", keyColumn: "id", in: connection)
    return (conninfo, connection)
}

/// A request on PostgreSQL as the tests write them: a predicate with `$n` parameters.
func pgRequest(
    table: String, sortDescriptors: [ColumnSortDescriptor], predicate: String? = nil,
    arguments: [(any PostgreSQLValue)?] = [],
    fetchLimit: Int = 0, fetchOffset: Int = 0, fetchBatchSize: Int = 0, relationships: [ToOneRelationship] = [],
    relationshipKeyPathsForRefreshing: Set<String> = []
) -> TableFetchRequest {
    TableFetchRequest(
        table: table, predicate: predicate.map { PostgreSQLPredicate(sql: $0, arguments: arguments) },
        sortDescriptors: sortDescriptors,
        fetchLimit: fetchLimit, fetchOffset: fetchOffset, fetchBatchSize: fetchBatchSize, relationships: relationships,
        relationshipKeyPathsForRefreshing: relationshipKeyPathsForRefreshing)
}
