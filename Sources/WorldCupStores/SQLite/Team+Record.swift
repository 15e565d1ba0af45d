import GRDB
import WorldCupModel

/// A team is a row of the SQLite store's `team` table, read and written through GRDB.
extension Team: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "team"
}
