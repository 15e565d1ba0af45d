import FetchedResultsSQLite
import GRDB
import WorldCupModel

/// The store's schema, as versioned migrations.
///
/// The `team` table holds the tutorial's `Team` entity. Constraints live in the schema, not only
/// in Swift, so that no writer (another process, `sqlite3` by hand) can store a negative or
/// non-integer win count or two teams whose names differ only in ASCII case.
enum StoreSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(firstMigration) { db in
            try db.execute(
                sql: """
                    CREATE TABLE team (
                        id INTEGER PRIMARY KEY,
                        teamName TEXT NOT NULL COLLATE NOCASE UNIQUE
                            CHECK (length(trim(teamName)) > 0),
                        qualifyingZone TEXT NOT NULL COLLATE NOCASE
                            CHECK (length(trim(qualifyingZone)) > 0),
                        imageName TEXT,
                        wins INTEGER NOT NULL DEFAULT 0
                            CHECK (typeof(wins) = 'integer' AND wins >= 0)
                    );
                    \(standingsIndexSQL);
                    -- One row once the first-launch seed has been imported. A marker, not "the team
                    -- table is empty", so that deleting every team never brings the seed back.
                    CREATE TABLE seedMarker (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        source TEXT NOT NULL,
                        teamCount INTEGER NOT NULL,
                        seededAt TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
                    );
                    """)
        }
        migrator.registerMigration("v2: change history") { db in
            // Every change to a team, from any process, leaves a row that open scoreboards read.
            try ChangeHistory.install(on: "team", in: db)
        }
        migrator.registerMigration("v3: store identity for result caches") { db in
            // Installing again adds what later library versions record (a store identity)
            // and leaves the rest as it is.
            try ChangeHistory.install(on: "team", in: db)
        }
        migrator.registerMigration("v4: history of rows REPLACE deletes") { db in
            try ChangeHistory.install(on: "team", in: db)
        }
        migrator.registerMigration("v5: names unique by a named index") { db in
            // A column's UNIQUE makes an index that cannot be dropped; a named one can, so that
            // a big import builds it once after the rows instead of keeping it ordered row by row.
            try db.execute(
                sql: """
                    CREATE TABLE team_v5 (
                        id INTEGER PRIMARY KEY,
                        teamName TEXT NOT NULL COLLATE NOCASE
                            CHECK (length(trim(teamName)) > 0),
                        qualifyingZone TEXT NOT NULL COLLATE NOCASE
                            CHECK (length(trim(qualifyingZone)) > 0),
                        imageName TEXT,
                        wins INTEGER NOT NULL DEFAULT 0
                            CHECK (typeof(wins) = 'integer' AND wins >= 0)
                    );
                    INSERT INTO team_v5 (id, teamName, qualifyingZone, imageName, wins)
                        SELECT id, teamName, qualifyingZone, imageName, wins FROM team;
                    DROP TABLE team;
                    ALTER TABLE team_v5 RENAME TO team;
                    \(nameIndexSQL);
                    \(standingsIndexSQL);
                    """)
            // Dropping the table dropped its history triggers.
            try ChangeHistory.install(on: "team", in: db)
        }
        migrator.registerMigration("v6: keyed scores and serve's token") { db in
            // A browser's tap is sent again when its reply is lost: its key, stored with the
            // win in the win's transaction, makes it count once, and keeps the first answer.
            // `serveToken` keeps only a digest of the scorer token.
            try db.execute(
                sql: """
                    CREATE TABLE scoreReceipt (
                        key TEXT PRIMARY KEY NOT NULL,
                        teamId INTEGER NOT NULL,
                        change INTEGER NOT NULL,
                        winsAfter INTEGER NOT NULL,
                        undoneWinsAfter INTEGER,
                        recordedAt TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
                    ) WITHOUT ROWID;
                    CREATE TABLE serveToken (
                        role TEXT PRIMARY KEY NOT NULL,
                        digest BLOB NOT NULL,
                        createdAt TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
                    ) WITHOUT ROWID;
                    """)
        }
        return migrator
    }

    /// The migration every store has, from its first open on.
    static let firstMigration = "v1: teams and seed marker"

    /// Why this build must leave the store in `db` as it is, if it must: another program's
    /// database, or a store from a newer version.
    static func refusal(of db: Database, path: String) throws -> WorldCupError? {
        if try belongsToAnotherProgram(db) { return .storeOfAnotherProgram(path: path, database: StoreErrors.database) }
        if try migrator.hasBeenSuperseded(db) { return .storeFromNewerVersion(path: path) }
        return nil
    }

    /// Whether the first-launch seed has been imported into the store in `db`.
    static func isSeeded(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM seedMarker)") ?? false
    }

    /// Whether `db` holds another program's data (given for `--db` by mistake), which must be
    /// left as it is: a table or index besides GRDB's migrations table, and no record of this
    /// store's first migration. A store another process is making at this moment has the
    /// migrations table alone, or its first migration whole (tables and record, one commit).
    static func belongsToAnotherProgram(_ db: Database) throws -> Bool {
        let holdsSomething = try Bool.fetchOne(
            db,
            sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master "
                + "WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> 'grdb_migrations')")
        guard holdsSomething == true else { return false }
        guard try db.tableExists("grdb_migrations") else { return true }
        let migrated = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM grdb_migrations WHERE identifier = ?)", arguments: [firstMigration])
        return migrated != true
    }

    /// No two names equal ignoring ASCII case (the column's `NOCASE`), as a named index that a
    /// big import drops and builds again after the rows.
    static let nameIndexSQL = "CREATE UNIQUE INDEX team_name ON team (teamName)"

    /// The standings order as an index, so the ordered fetch is a scan of it (a big import
    /// drops it and builds it again). Made from ``Team/standingsOrder``, like the
    /// scoreboard's request and `worldcup list`.
    static let standingsIndexSQL =
        "CREATE INDEX team_standings ON team (" + Team.standingsOrder.map(\.sqliteOrderingSQL).joined(separator: ", ")
        + ")"

    /// History rows kept when pruning: far more than an open scoreboard falls behind between
    /// two looks; one that does fall behind refetches.
    static let historyKept = 10_000
}
