import GRDB
import WorldCupModel

/// Versions of the libraries the store runs on, for `--version` and bug reports.
public enum LibraryVersions {
    /// The SQLite library's version, such as "3.40.1".
    public static var sqlite: String {
        (try? DatabaseQueue().read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") }) ?? "unknown"
    }
}
