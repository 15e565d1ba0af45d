/// A column's name as a request takes it: a string for names decided at run time, or a typed
/// name — GRDB's `Column`, a record's `Columns`, or its `CodingKeys` declared
/// `ColumnNameRepresentable` — so that a misspelt name is a compile error.
///
/// ```swift
/// struct Team: Codable {
///     enum CodingKeys: String, CodingKey, ColumnNameRepresentable { case teamName, qualifyingZone, wins }
///     …
/// }
/// let sortDescriptors: [ColumnSortDescriptor] = [
///     .ascending(Team.CodingKeys.qualifyingZone, collation: .caseInsensitive),
///     .descending(Team.CodingKeys.wins),
/// ]
/// ```
public protocol ColumnNameRepresentable {
    /// The column's name in the database.
    var columnName: String { get }
}

extension String: ColumnNameRepresentable {
    /// The string itself.
    public var columnName: String { self }
}

extension ColumnNameRepresentable where Self: CodingKey {
    /// The coding key's string value, which a `Codable` record's column is named after.
    public var columnName: String { stringValue }
}

extension ToOneRelationship {
    /// The key path to a column of the related table, such as `project.colour`: a sort key, the
    /// section key path, or a key path whose changes refresh the fetched rows.
    public func keyPath(_ column: some ColumnNameRepresentable) -> String {
        name + "." + column.columnName
    }
}
