import GRDB
import WorldCupModel

/// A team is a row of the SQLite store's `team` table, read and written through GRDB.
extension Team: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "team"

    /// The table's columns in the order the schema makes them, which every `SELECT *` keeps.
    private static let tableColumns = ["id", "teamName", "qualifyingZone", "imageName", "wins"]

    /// Reads a team by column position when the row starts with the table's columns in order
    /// (a `SELECT *`, and the results controller's `SELECT *, rowid`), by name otherwise. Decoding by name (and so the `Decodable` one) looks each
    /// column up ignoring case, folding every column name of every row: a quarter of `serve`'s
    /// time while it read a million teams behind its first rows.
    public init(row: Row) throws {
        if row.count >= Self.tableColumns.count, zip(row.columnNames, Self.tableColumns).allSatisfy({ $0 == $1 }) {
            self.init(
                id: try row.decode(atIndex: 0), teamName: try row.decode(atIndex: 1),
                qualifyingZone: try row.decode(atIndex: 2), imageName: try row.decode(atIndex: 3),
                wins: try row.decode(atIndex: 4))
        } else {
            self.init(
                id: try row.decode(forColumn: "id"), teamName: try row.decode(forColumn: "teamName"),
                qualifyingZone: try row.decode(forColumn: "qualifyingZone"),
                imageName: try row.decode(forColumn: "imageName"), wins: try row.decode(forColumn: "wins"))
        }
    }
}
