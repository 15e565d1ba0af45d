import FetchedResults
import GRDB

/// A key path across a to-one relationship (`ToOneRelationship`), resolved against the schema:
/// what to select for it and which rows of the fetched table a change to a related row concerns.
///
/// A relationship the request does not declare is found among the table's foreign keys when it
/// is a one-column key to the related table's row id named after the relationship (`bucket`,
/// `bucketId`, `bucket_id`, or a key to table `bucket`).
struct RelationshipKeyPath: Hashable {
    /// The key path as the request names it (also the name of its column in fetched rows).
    let keyPath: String
    let relationship: ToOneRelationship
    let destinationColumn: String

    /// The related value of each fetched row, as an SQL expression over the fetched table. A
    /// subquery rather than a join, so that the predicate's column names stay unambiguous; an
    /// alias, so that a relationship to the fetched table itself works too.
    func selectExpression(from table: String) -> String {
        let related = "fetchedresults_related"
        return "(SELECT \(related).\(destinationColumn.quotedDatabaseIdentifier) "
            + "FROM \(relationship.destinationTable.quotedDatabaseIdentifier) AS \(related) "
            + "WHERE \(related).\((relationship.destinationKey ?? "rowid").quotedDatabaseIdentifier) = "
            + "\(table.quotedDatabaseIdentifier).\(relationship.foreignKey.quotedDatabaseIdentifier))"
    }

    /// Resolves key paths the request uses (see `TableFetchRequest.keyPathsAcrossRelationships(sectionNameKeyPath:)`);
    /// throws a descriptive error for one that names no relationship, more than one, or a
    /// column the related table lacks.
    static func resolve(
        _ keyPaths: Set<String>, of request: TableFetchRequest, _ db: Database
    ) throws -> [RelationshipKeyPath] {
        var foreignKeys: [ForeignKeyInfo]?
        return try keyPaths.sorted().map { keyPath in
            let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw FetchedResultsError.unsupportedKeyPath(keyPath: keyPath)
            }
            let relationship: ToOneRelationship
            if let declared = request.relationships.first(where: { $0.name.lowercased() == parts[0].lowercased() }) {
                relationship = declared
            } else {
                foreignKeys = try foreignKeys ?? db.foreignKeys(on: request.table)
                guard let found = try inferred(parts[0], from: foreignKeys!, db) else {
                    throw FetchedResultsError.unknownRelationship(keyPath: keyPath, table: request.table)
                }
                relationship = found
            }
            let columns = try db.columns(in: relationship.destinationTable).map { $0.name.lowercased() }
            guard columns.contains(parts[1].lowercased()) else {
                throw FetchedResultsError.unknownRelatedColumn(keyPath: keyPath, table: relationship.destinationTable)
            }
            return RelationshipKeyPath(keyPath: keyPath, relationship: relationship, destinationColumn: parts[1])
        }
    }

    /// A one-column foreign key to a row id, whose destination table or column is named after
    /// the relationship: `bucket` matches table `bucket` or a column `bucket`, `bucketId` or
    /// `bucket_id`.
    private static func inferred(
        _ name: String, from foreignKeys: [ForeignKeyInfo], _ db: Database
    ) throws -> ToOneRelationship? {
        let name = name.lowercased()
        let columnNames = [name, name + "id", name + "_id"]
        let candidates = try foreignKeys.filter { foreignKey in
            guard foreignKey.mapping.count == 1 else { return false }
            // Related rows are found by row id, so the key must refer to it.
            let rowID = try db.primaryKey(foreignKey.destinationTable).rowIDColumn
            return rowID?.lowercased() == foreignKey.mapping[0].destination.lowercased()
        }
        let match =
            candidates.first { columnNames.contains($0.mapping[0].origin.lowercased()) }
            ?? candidates.first { $0.destinationTable.lowercased() == name }
        return match.map {
            ToOneRelationship(name, foreignKey: $0.mapping[0].origin, destinationTable: $0.destinationTable)
        }
    }
}
