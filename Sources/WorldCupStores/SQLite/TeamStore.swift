import FetchedResultsSQLite
import Foundation
import GRDB
import WorldCupModel

/// The teams' SQLite store: opening, migrating, first-launch seeding, and every write.
///
/// Every write is one transaction, so a failing write leaves the store as it was. Errors a user
/// can cause come out as ``WorldCupError`` with a message that says what to do. The ways to
/// score and correct are written once for every store (the extensions of ``ScoreStore``); this
/// store gives their SQL and transaction (`TeamStore+Transaction`).
public final class TeamStore: ScoreStore, Sendable {
    /// The store file's path, as the user gave it.
    public let path: String
    public var displayName: String { path }
    /// The connection pool (WAL mode: readers never block the writer); not public, so that
    /// every write goes through the store's methods and their checks.
    let pool: DatabasePool
    /// Whether this user may only read the store (see ``open(path:createDirectory:lockWait:)``).
    public let isReadOnly: Bool

    private init(path: String, pool: DatabasePool, isReadOnly: Bool = false) {
        self.path = path
        self.pool = pool
        self.isReadOnly = isReadOnly
    }

    /// Opens (creating if needed) the store at `path` and brings its schema up to date.
    ///
    /// A store this user may read but not write (the file or its folder) is opened read-only,
    /// as `sqlite3 -readonly` opens it: reads work, and every write is refused with
    /// ``WorldCupError/storeReadOnly(path:)``.
    ///
    /// - Parameters:
    ///   - createDirectory: create the store's folder when missing (for the default location); a
    ///     folder the user named must already exist.
    ///   - lockWait: how long opening and each write wait for another program that holds the
    ///     store before giving up with ``WorldCupError/storeBusy(path:)``.
    ///   - onlyToRead: the caller only reads (`list`, `export`): a store another program has
    ///     open is then opened read-only when it needs nothing written (see
    ///     `openedToRead(path:lockWait:)`), and reading never waits for that program's writes.
    public static func open(
        path: String, createDirectory: Bool = false, lockWait: Duration = defaultLockWait, onlyToRead: Bool = false
    )
        throws -> TeamStore
    {
        let lockWait = lockWait / .seconds(1)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw WorldCupError.storeIsAFolder(path: path)
        }
        let folder = (path as NSString).deletingLastPathComponent
        let shownFolder = folder.isEmpty ? "." : folder
        // Said as what they are, before SQLite calls each of them a file it cannot open.
        var folderStatus = stat()
        if stat(shownFolder, &folderStatus) != 0 {
            switch errno {
            case ENOENT:
                guard createDirectory else { throw WorldCupError.storeDirectoryMissing(path: path) }
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                } catch {
                    throw WorldCupError.storeFolderUnwritable(path: path, folder: shownFolder)
                }
            case ENOTDIR: throw WorldCupError.storeFolderNotAFolder(path: path)
            default: throw WorldCupError.storeFolderUnreachable(path: path, folder: shownFolder)
            }
        } else if folderStatus.st_mode & S_IFMT != S_IFDIR {
            throw WorldCupError.storeFolderNotAFolder(path: path)
        }
        if access(shownFolder, X_OK) != 0 {
            throw WorldCupError.storeFolderUnreachable(path: path, folder: shownFolder)
        }
        let exists = FileManager.default.fileExists(atPath: path)
        if exists && access(path, R_OK) != 0 { throw WorldCupError.storeUnreadable(path: path) }
        if !exists && access(shownFolder, W_OK) != 0 {
            throw WorldCupError.storeFolderUnwritable(path: path, folder: shownFolder)
        }
        return try StoreErrors.translating(path: path) {
            if exists && !mayWrite(path: path, folder: folder) {
                let store = TeamStore(
                    path: path, pool: try openReadOnlyPool(path: path, lockWait: lockWait), isReadOnly: true)
                // Up to date already, or refused: a read-only store cannot be migrated.
                try store.migrate()
                return store
            }
            if exists && onlyToRead, let store = openedToRead(path: path, lockWait: lockWait) { return store }
            let pool = try openPool(path: path, lockWait: lockWait)
            let store = TeamStore(path: path, pool: pool)
            try store.migrate()
            return store
        }
    }

    /// The store opened read-only for a caller that only reads, when another program has it
    /// open (its `-wal` and `-shm` files are there) and it needs nothing written: up to date and
    /// seeded. Else nil, and it is opened as usual. Opening a writable pool writes first when
    /// the WAL file is empty (GRDB makes sure it is not), so it would wait for a writer that
    /// holds its lock before writing, which reading in WAL mode never has to.
    private static func openedToRead(path: String, lockWait: TimeInterval) -> TeamStore? {
        let files = FileManager.default
        guard files.fileExists(atPath: path + "-wal"), files.fileExists(atPath: path + "-shm") else { return nil }
        // Whatever fails here (a WAL a killed writer left for a writer to recover, say) is left
        // to the usual way, which says what it is.
        do {
            let store = TeamStore(
                path: path, pool: try openReadOnlyPool(path: path, lockWait: lockWait), isReadOnly: true)
            let ready = try store.pool.read { db in
                try StoreSchema.refusal(of: db, path: path) == nil && StoreSchema.migrator.hasCompletedMigrations(db)
                    && StoreSchema.isSeeded(db)
            }
            return ready ? store : nil
        } catch {
            return nil
        }
    }

    /// Whether this user may write the store file and its folder, where SQLite makes and
    /// removes the `-wal` and `-shm` files (root too is refused on a read-only file system or
    /// an immutable file).
    private static func mayWrite(path: String, folder: String) -> Bool {
        let files = FileManager.default
        return files.isWritableFile(atPath: path) && files.isWritableFile(atPath: folder.isEmpty ? "." : folder)
    }

    /// A read-only pool that creates no file beside the store. With the `-wal` and `-shm` files
    /// a writer keeps (or left behind), SQLite reads the commits in the WAL through them. Without
    /// them it would create them, and a reader cannot remove them: in a folder that is not the
    /// reader's, a `-shm` file left behind refuses the owner's writes. Then the file alone holds
    /// every commit, and is opened `immutable`, which reads it without locks or other files
    /// (so an open scoreboard does not see a writer who starts later).
    private static func openReadOnlyPool(path: String, lockWait: TimeInterval) throws -> DatabasePool {
        var configuration = connectionConfiguration()
        configuration.readonly = true
        configuration.busyMode = .timeout(lockWait)
        let files = FileManager.default
        if files.fileExists(atPath: path + "-wal") && files.fileExists(atPath: path + "-shm") {
            return try DatabasePool(path: path, configuration: configuration)
        }
        let absolute = path.hasPrefix("/") ? path : files.currentDirectoryPath + "/" + path
        let encoded = absolute.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? absolute
        return try DatabasePool(path: "file:" + encoded + "?immutable=1", configuration: configuration)
    }

    /// What every connection of the pool starts with.
    ///
    /// A page cache of 512 KiB each, not SQLite's default 2 MB: a load step seeks the standings
    /// index from its last row, which needs the index's inner pages (a few hundred KiB at a
    /// million teams), and the leaf pages it reads once are not read again: a bigger cache
    /// would only keep pages no step reads twice. An import sets its own.
    private static func connectionConfiguration() -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -512") }
        return configuration
    }

    /// How long opening and writes wait for other processes that hold the store, unless told.
    public static let defaultLockWait = Duration.seconds(10)
    /// How long a score's key is kept (see ``tidyWhileIdle()``): far longer than a lost reply is
    /// sent again or an evening's undo reaches back, and the store does not grow by a row per
    /// key press for ever.
    public static let receiptsKept = Duration.seconds(7 * 86_400)

    /// Opens the pool, retrying while another process holds the file.
    ///
    /// Opening a pool sets `PRAGMA journal_mode = WAL`, and SQLite does not call the busy
    /// handler for that statement: when several processes open a new store at once, all but one
    /// get SQLITE_BUSY at once, whatever the busy timeout. Once the file is in WAL mode (a
    /// lasting property of the file) the statement takes no lock and the retry succeeds.
    ///
    /// Opening a pool also writes to the file (GRDB makes sure the WAL exists), and a store we
    /// must refuse (not SQLite, another program's, from a newer version) has to be left exactly
    /// as it was: the writer's connection checks the file first, before the pool sets it up (a
    /// connection opened for the check alone would make every start open one more). That check
    /// reads the migrations table, which another process may be creating at that moment: it
    /// looks again then, as `migrate()` does (see `lookingAgainWhileAnotherProcessCreatesTheStore`).
    private static func openPool(path: String, lockWait: TimeInterval) throws -> DatabasePool {
        var configuration = connectionConfiguration()
        configuration.busyMode = .timeout(lockWait)
        configuration.prepareDatabase { db in
            guard !db.configuration.readonly else { return }
            if let refusal = try StoreSchema.refusal(of: db, path: path) { throw refusal }
        }
        let deadline = Date(timeIntervalSinceNow: lockWait)
        var pause: TimeInterval = 0.005
        var tableReads = 0
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < deadline {
                Thread.sleep(forTimeInterval: pause)
                pause = min(pause * 2, 0.1)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR && tableReads < 20 {
                // "no such table": the migrations table half made (see the function below).
                tableReads += 1
                Thread.sleep(forTimeInterval: 0.005 * Double(tableReads))
            }
        }
    }

    /// Runs `body` again, a few times, when it fails the way a store that another process is
    /// creating at this moment makes it fail: GRDB reads which migrations are applied outside
    /// of their transactions, so a process opening a new store while another one does may find
    /// the migrations table half made ("no such table") or run a migration the other has just
    /// applied. Each migration's transaction records it under a unique identifier, so a second
    /// run is rolled back, never applied twice. (No lock file: closing another descriptor of
    /// the database file would drop SQLite's own POSIX locks on it, and that corrupts a WAL
    /// database.)
    private static func lookingAgainWhileAnotherProcessCreatesTheStore<T>(_ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch let error as DatabaseError
                where attempt < 20
                && [.SQLITE_ERROR, .SQLITE_CONSTRAINT, .SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode)
            {
                Thread.sleep(forTimeInterval: 0.005 * Double(attempt))
                attempt += 1
            }
        }
    }

    private func migrate() throws {
        let migrator = StoreSchema.migrator
        var migrated = false
        try Self.lookingAgainWhileAnotherProcessCreatesTheStore {
            let state = try pool.read { db in
                (
                    refusal: try StoreSchema.refusal(of: db, path: path),
                    complete: try migrator.hasCompletedMigrations(db)
                )
            }
            if let refusal = state.refusal { throw refusal }
            if !state.complete {
                migrated = true
                try migrator.migrate(pool)
            }
        }
        try useTheSchemaAsMigrated(readersLookedBefore: migrated)
    }

    /// Makes the pool's connections prepare statements on the schema as it is now. A connection
    /// keeps the schema it last read until a statement it runs finds it changed, and GRDB keeps
    /// the column names of a `SELECT *` prepared on an older schema: a column that a migration
    /// (this process's or another's) added since would be missing from the rows it reads. The
    /// writer may have read the schema when it opened, before another process migrated (a
    /// read-only store has nothing left to migrate); the readers that looked at the migrations,
    /// when some were still to run.
    private func useTheSchemaAsMigrated(readersLookedBefore: Bool) throws {
        if readersLookedBefore { pool.invalidateReadOnlyConnections() }
        guard !isReadOnly else { return }
        try pool.writeWithoutTransaction { db in
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
        }
    }

    // MARK: - Seeding

    /// Whether the first-launch seed has been imported into this store.
    public func isSeeded() throws -> Bool {
        try StoreErrors.translating(path: path) {
            try pool.read(StoreSchema.isSeeded)
        }
    }

    /// Imports the seed if this store has never been seeded; returns how many teams it imported.
    ///
    /// `loadSeed` is called only when the seed is needed, so a missing seed file is no problem
    /// for a store that was seeded long ago. The import and the marker are one transaction.
    @discardableResult
    public func seedIfNeeded(progress: ImportProgress? = nil, loadSeed: () throws -> SeedSource) throws -> Int {
        if try isSeeded() { return 0 }
        let seed = try loadSeed()
        return try StoreErrors.translating(path: path) {
            try pool.write { db in
                // Another process may have seeded while the file was read.
                guard try !StoreSchema.isSeeded(db) else { return 0 }
                let count = try Self.importRows(from: seed, skippingExisting: false, db: db, progress: progress).read
                try db.execute(
                    sql: "INSERT INTO seedMarker (id, source, teamCount) VALUES (1, ?, ?)",
                    arguments: [seed.file, count])
                return count
            }
        }
    }

    // MARK: - Writes

    /// Imports teams from a file in one transaction, streamed: a file of any size takes the
    /// same bounded memory (see ``importRows(from:skippingExisting:db:progress:)``). A name
    /// already in the store is reported against its entry and nothing is imported, unless
    /// `skippingExisting`, which leaves that entry out (and keeps the team in the store as it is).
    @discardableResult
    public func importTeams(
        from source: SeedSource, skippingExisting: Bool = false, progress: ImportProgress? = nil
    ) throws -> (imported: Int, skipped: Int) {
        try StoreErrors.translating(path: path) {
            try pool.write { db in
                let counts = try Self.importRows(
                    from: source, skippingExisting: skippingExisting, db: db, progress: progress)
                return (counts.inserted, counts.read - counts.inserted)
            }
        }
    }

    /// Keeps the change history to its newest rows, forgets the score keys older than
    /// ``receiptsKept``, then moves committed pages from the write-ahead log into the database
    /// file, if no reader is in the way. The scoreboard calls this when idle, so that SQLite's
    /// automatic checkpoint does not land inside a keypress's commit.
    public func tidyWhileIdle() {
        _ = try? pool.writeWithoutTransaction { db in
            try db.inTransaction {
                try ChangeHistory.prune(keeping: StoreSchema.historyKept, in: db)
                try db.execute(
                    sql: "DELETE FROM scoreReceipt WHERE recordedAt < strftime('%Y-%m-%dT%H:%M:%SZ', 'now', ?)",
                    arguments: ["-\(Self.receiptsKept.components.seconds) seconds"])
                return .commit
            }
            try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")
        }
    }

    // MARK: - Reads

    /// The teams by zone in standings order (``Team/standingsOrder``), as the scoreboard shows
    /// them: the sections of a results controller that does not track changes.
    public func standings() throws -> [ZoneStanding] {
        try StoreErrors.translating(path: path) {
            let controller = FetchedResultsController<Team>(
                fetchRequest: TableFetchRequest(Team.self, sortDescriptors: Team.standingsOrder),
                database: pool, sectionNameKeyPath: Team.sectionAttribute)
            try controller.performFetch()
            return try (controller.sections ?? []).map { ZoneStanding(zone: $0.name, teams: $0.objects) }
        }
    }
}
