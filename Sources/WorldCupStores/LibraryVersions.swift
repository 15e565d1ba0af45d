import GRDBSQLite

/// Versions of the libraries the store runs on, for `--version` and bug reports.
public enum LibraryVersions {
    /// The SQLite library's version, such as "3.40.1": asked of the library itself, since every
    /// command reads it at start (it is part of the command line's configuration), where
    /// opening a database only to ask would delay every command.
    public static var sqlite: String {
        String(cString: sqlite3_libversion())
    }
}
