import FetchedResults

/// A request's condition in PostgreSQL's SQL, with parameters `$1`, `$2`… bound to
/// `arguments`; values are never written into the text.
///
/// ```swift
/// TableFetchRequest(table: "team", predicate: PostgreSQLPredicate(sql: "wins > $1", arguments: [3]),
///                   sortDescriptors: order)
/// ```
public struct PostgreSQLPredicate: FetchPredicate, Equatable {
    /// The condition, on the fetched table's columns.
    public var sql: String
    /// The parameters in the text form the server reads (nil is NULL).
    public var arguments: [String?]

    /// A condition with parameters `$1`, `$2`… for `arguments` (nil is NULL), typed as for
    /// ``PostgreSQLConnection/execute(_:_:)``.
    public init(sql: String, arguments: [(any PostgreSQLValue)?] = []) {
        self.sql = sql
        self.arguments = postgreSQLParameters(arguments)
    }
}

/// A request as SQL on one PostgreSQL database: the statements a ``PostgreSQLStore`` runs,
/// made once per fetch from the request, its resolved relationships and its sort keys' types.
struct PostgreSQLQuery {
    /// The alias of the fetched table in every statement.
    static let rowAlias = "fetched_row"

    let request: TableFetchRequest
    let keyColumn: String
    let predicate: PostgreSQLPredicate?
    let related: [RelatedKeyPath]
    let sortKeys: [PostgreSQLSortKey]

    var table: String { request.table }
    var quotedTable: String { PostgreSQLChangeFeed.quotedName(table) }
    var quotedKey: String { PostgreSQLChangeFeed.quotedName(keyColumn) }
    var arguments: [String?] { predicate?.arguments ?? [] }

    /// The table under its alias, for a `FROM` clause.
    var fromSQL: String { "\(quotedTable) AS \(Self.rowAlias)" }

    /// `WHERE` and the predicate, or nothing.
    var whereSQL: String { predicate.map { " WHERE (\($0.sql))" } ?? "" }

    /// A column of the fetched row (`fetched_row."name"`), or a related value's subquery.
    func expression(_ column: String) -> String {
        related.first { $0.keyPath == column }?.selectExpression
            ?? Self.rowAlias + "." + PostgreSQLChangeFeed.quotedName(column)
    }

    /// The select list of full rows: every column, then each related value under its key path.
    var fullRowSQL: String {
        ([Self.rowAlias + ".*"]
            + related.map { $0.selectExpression + " AS " + PostgreSQLChangeFeed.quotedName($0.keyPath) })
            .joined(separator: ", ")
    }

    /// The select list of ordering only: the key, then each sort value under its key's name.
    var keysOnlySQL: String {
        ([keyColumn] + request.sortDescriptors.map(\.key))
            .map { expression($0) + " AS " + PostgreSQLChangeFeed.quotedName($0) }
            .joined(separator: ", ")
    }

    var orderBySQL: String {
        (sortKeys.map { $0.orderingSQL(on: expression($0.descriptor.key)) } + [expression(keyColumn) + " ASC"])
            .joined(separator: ", ")
    }

    /// The rows whose ids are in an array parameter; with `matching`, only those that still
    /// match the predicate, whose own parameters come first.
    func rowsAmongSQL(matching: Bool) -> String {
        let key = Self.rowAlias + "." + quotedKey
        guard matching, let predicate else { return " WHERE \(key) = ANY($1::bigint[])" }
        return " WHERE (\(predicate.sql)) AND \(key) = ANY($\(predicate.arguments.count + 1)::bigint[])"
    }

    /// The parameters of ``rowsAmongSQL(matching:)``.
    func argumentsAmong(_ rowIDs: [Int64], matching: Bool) -> [String?] {
        (matching ? arguments : []) + ["{" + rowIDs.map(String.init).joined(separator: ",") + "}"]
    }
}

/// A key path across a to-one relationship: what to select for it, and how to find the
/// fetched rows a change to a related row concerns.
struct RelatedKeyPath: Hashable {
    let keyPath: String
    let relationship: ToOneRelationship
    let column: String

    /// The related table's id column.
    var destinationKey: String { relationship.destinationKey ?? "id" }

    /// The related value of the fetched row, as a subquery (not a join, so that the
    /// predicate's column names stay unambiguous).
    var selectExpression: String {
        let related = "fetched_related", quoted = PostgreSQLChangeFeed.quotedName
        return "(SELECT \(related).\(quoted(column)) FROM \(quoted(relationship.destinationTable)) "
            + "AS \(related) WHERE \(related).\(quoted(destinationKey)) = "
            + "\(PostgreSQLQuery.rowAlias).\(quoted(relationship.foreignKey)))"
    }

    /// The key paths across relationships a request uses, resolved against its declared
    /// relationships (PostgreSQL's are not guessed from foreign keys).
    static func resolve(_ request: TableFetchRequest, sectionNameKeyPath: String?) throws -> [RelatedKeyPath] {
        try request.keyPathsAcrossRelationships(sectionNameKeyPath: sectionNameKeyPath).sorted().map { keyPath in
            let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw FetchedResultsError.unsupportedKeyPath(keyPath: keyPath)
            }
            guard let relationship = request.relationships.first(where: { $0.name == parts[0] }) else {
                throw FetchedResultsError.unknownRelationship(keyPath: keyPath, table: request.table)
            }
            return RelatedKeyPath(keyPath: keyPath, relationship: relationship, column: parts[1])
        }
    }
}
