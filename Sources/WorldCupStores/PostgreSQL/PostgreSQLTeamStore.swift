import FetchedResultsPostgreSQL
import Foundation
import WorldCupModel

/// The teams in a PostgreSQL database that scoreboards on many machines share: opening,
/// migrating, the first seed (exactly once), and every write.
///
/// Each write is one transaction on the store's own connection; the scoreboards see it through
/// their controllers' change feed. The ways to score and correct are written once for every
/// store (the extensions of ``ScoreStore``); this store gives their SQL and transactions
/// (`PostgreSQLTeamStore+Transaction`). Who may do what is the server's decision (roles and
/// `GRANT`); a refused write says "read-only" and what was refused.
///
/// **Scores survive a lost commit reply.** A win or an undo stores its ``ScoreKey`` in
/// `score_receipt` in the same transaction. When the connection breaks during the transaction,
/// the store reconnects and does the same score again with the same key: a key the server
/// already holds means the first attempt committed, and nothing more is done. So a score counts
/// exactly once, whatever the network did, and it is never retried blindly.
public final class PostgreSQLTeamStore: ScoreStore {
    /// How to reach the server, as `psql` reads it.
    public let conninfo: String
    public let displayName: String
    /// How long a score whose commit reply was lost is sent again (with its key) while the
    /// server is away, before it is reported in doubt. A command waits long; the scoreboard,
    /// which keeps scores in doubt and sends them again once the server is back, briefly.
    public let doubtTimeout: Duration
    private var connection: PostgreSQLConnection?
    /// The role the connection logged in as, for messages about permissions.
    private var role = "?"
    /// When ``tidyWhileIdle()`` last pruned the change history.
    private var lastPruned: ContinuousClock.Instant?

    /// Connection parameters a scoreboard needs and libpq does not default to: give up
    /// connecting after a few seconds, and notice a cut link within seconds (keepalives, and
    /// unacknowledged data) instead of after TCP's minutes. The URI and `PG*` variables win.
    static let connectionDefaults = [
        "connect_timeout": "3", "keepalives_idle": "2", "keepalives_interval": "1", "keepalives_count": "2",
        "tcp_user_timeout": "3000", "application_name": "worldcup",
    ]

    /// The parameters of the connection that writes (and migrates, seeds, and reads for
    /// commands), and of the controllers that follow the standings. With several hosts in the
    /// URI (a primary and its standbys), writes go to the one that accepts them
    /// (`target_session_attrs=read-write`) and screens read a standby when one is up
    /// (`prefer-standby`): a follower reads the replicated history, which needs no `LISTEN`. A
    /// `target_session_attrs` of the URI's own, or `PGTARGETSESSIONATTRS`, wins.
    let writeDefaults: [String: String]
    let followDefaults: [String: String]

    private init(conninfo: String, doubtTimeout: Duration) {
        self.conninfo = conninfo
        self.doubtTimeout = doubtTimeout
        displayName = PostgreSQLConnection.summary(of: conninfo) ?? "the PostgreSQL server"
        let severalHosts = PostgreSQLConnection.parameters(of: conninfo)?["host"]?.contains(",") ?? false
        writeDefaults = Self.connectionDefaults.merging(
            severalHosts ? ["target_session_attrs": "read-write"] : [:]
        ) { $1 }
        followDefaults = Self.connectionDefaults.merging(
            severalHosts ? ["target_session_attrs": "prefer-standby"] : [:]
        ) { $1 }
    }

    /// Whether `argument` names a PostgreSQL database (a libpq URI) rather than an SQLite file.
    public static func isConnectionURI(_ argument: String) -> Bool {
        argument.hasPrefix("postgresql://") || argument.hasPrefix("postgres://")
    }

    /// ``doubtTimeout`` unless the opener says otherwise: a command may wait long.
    public static let defaultDoubtTimeout = Duration.seconds(30)

    /// Connects to the database `conninfo` names and brings its schema up to date.
    public static func open(
        conninfo: String, doubtTimeout: Duration = defaultDoubtTimeout
    ) throws -> PostgreSQLTeamStore {
        do {
            try PostgreSQLConnection.loadClientLibrary()
        } catch let PostgreSQLError.clientLibraryMissing(reason) {
            throw PostgreSQLStoreError.clientMissing(reason: reason)
        }
        if let problem = PostgreSQLConnection.parseProblem(of: conninfo) {
            throw PostgreSQLStoreError.connectionURIUnreadable(reason: problem)
        }
        if PostgreSQLConnection.parameters(of: conninfo)?["password"] != nil {
            throw PostgreSQLStoreError.passwordInURI
        }
        let store = PostgreSQLTeamStore(conninfo: conninfo, doubtTimeout: doubtTimeout)
        try store.migrate()
        return store
    }

    // MARK: - Connection and errors

    private func connected() throws -> PostgreSQLConnection {
        if let connection, connection.isConnected { return connection }
        connection = nil
        let made = try PostgreSQLConnection(conninfo, defaults: writeDefaults)
        role = try made.execute("SELECT current_user").scalar ?? "?"
        connection = made
        return made
    }

    /// Runs `body` in one transaction; the server's errors become ones a user can act on.
    func transaction<T>(
        _ action: String, isolation: IsolationLevel = .readCommitted, _ body: (PostgreSQLConnection) throws -> T
    ) throws -> T {
        do {
            let connection = try connected()
            return try connection.transaction(isolation: isolation) { try body(connection) }
        } catch let error as PostgreSQLError {
            throw translate(error, action: action)
        }
    }

    private func translate(_ error: PostgreSQLError, action: String) -> any Error {
        switch error {
        case let .clientLibraryMissing(reason):
            return PostgreSQLStoreError.clientMissing(reason: reason)
        case let .connectionFailed(reason), let .connectionLost(reason), let .reconnecting(reason):
            connection = nil
            return StoreError.serverUnreachable(server: displayName, reason: Self.firstLine(reason))
        case let .statementFailed(state, message):
            if error.isConnectionLost {
                connection = nil
                return StoreError.serverUnreachable(server: displayName, reason: message)
            }
            if state == .insufficientPrivilege {
                return StoreError.roleNotPermitted(server: displayName, role: role, action: action)
            }
            return WorldCupError.storeFailed(path: displayName, reason: message)
        }
    }

    private static func firstLine(_ text: String) -> String {
        String(text.prefix { $0 != "\n" })
    }

    /// Runs a score: on a lost connection, sends it again with the same key until it is known
    /// to be done, or ``doubtTimeout`` passes.
    func score<T>(_ action: String, _ body: (PostgreSQLConnection) throws -> T) throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now + doubtTimeout
        var pause = Duration.milliseconds(50)
        var sentOnce = false
        while true {
            do {
                let connection = try connected()
                sentOnce = true
                let value = try connection.transaction { try body(connection) }
                announceCommit()
                return value
            } catch let error as PostgreSQLError
                where error.isConnectionLost || (sentOnce && Self.isConnectionFailure(error))
            {
                connection = nil
                guard clock.now + pause < deadline else {
                    throw StoreError.scoreInDoubt(server: displayName, reason: Self.firstLine("\(error)"))
                }
                Thread.sleep(forTimeInterval: pause / .seconds(1))
                pause = min(pause * 2, .seconds(1))
            } catch let error as PostgreSQLError {
                throw translate(error, action: action)
            }
        }
    }

    /// Wakes the screens following the database on a primary now, not at their next look. The
    /// change is committed whatever becomes of the announcement.
    func announceCommit() {
        guard let connection else { return }
        try? PostgreSQLChangeFeed.announce(in: connection)
    }

    private static func isConnectionFailure(_ error: PostgreSQLError) -> Bool {
        if case .connectionFailed = error { return true }
        return false
    }

    // MARK: - Schema

    /// Applies the migrations this database lacks, under the advisory lock, so that programs
    /// opening a new database at once apply each exactly once. A reader of an up-to-date
    /// database takes no lock.
    private func migrate() throws {
        let version = try transaction("read the schema version") { try Self.appliedVersion($0) }
        if version == PostgreSQLSchema.latestVersion { return }
        if version > PostgreSQLSchema.latestVersion { throw WorldCupError.storeFromNewerVersion(path: displayName) }
        do {
            try transaction("create the worldcup tables") { connection in
                try connection.execute("SELECT pg_advisory_xact_lock($1)", [PostgreSQLSchema.lockKey])
                try connection.execute(
                    """
                    CREATE TABLE IF NOT EXISTS \(PostgreSQLSchema.versionTable) (
                        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                    """)
                let applied = try Self.appliedVersion(connection)
                for migration in PostgreSQLSchema.migrations where migration.version > applied {
                    for statement in migration.statements { try connection.execute(statement) }
                    if PostgreSQLSchema.installsChangeFeed(migration.version) {
                        try PostgreSQLChangeFeed.install(on: "team", keyColumn: "id", in: connection)
                    }
                    try connection.execute(
                        "INSERT INTO \(PostgreSQLSchema.versionTable) (version, name) VALUES ($1, $2)",
                        [migration.version, migration.name])
                }
            }
        } catch let error as StoreError where error.reason == .notPermitted {
            throw PostgreSQLStoreError.schemaNotInstalled(server: displayName, role: role)
        }
    }

    /// The last migration applied, 0 for a database without worldcup tables.
    private static func appliedVersion(_ connection: PostgreSQLConnection) throws -> Int {
        let exists =
            try connection.execute("SELECT to_regclass($1) IS NOT NULL", [PostgreSQLSchema.versionTable]).scalar == "t"
        guard exists else { return 0 }
        return Int(
            try connection.execute("SELECT coalesce(max(version), 0) FROM \(PostgreSQLSchema.versionTable)").scalar
                ?? "0") ?? 0
    }

    // MARK: - Seeding and import

    @discardableResult
    public func seedIfNeeded(progress: ImportProgress? = nil, loadSeed: () throws -> SeedSource) throws -> Int {
        let seeded = try transaction("read the seed marker") { try Self.isSeeded($0) }
        if seeded { return 0 }
        let source = try loadSeed()
        // The rows go to the server in batches of arrays, so they are read whole first.
        let seed = (entries: try source.entries(), source: source.file)
        return try transaction("import the seed (as the database's owner or organiser)") { connection in
            // Every program that found no seed waits here; the first one seeds.
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [PostgreSQLSchema.lockKey])
            if try Self.isSeeded(connection) { return 0 }
            _ = try Self.insert(
                seed.entries, file: seed.source, skippingExisting: false, connection, progress: progress)
            try connection.execute(
                "INSERT INTO seed_marker (id, source, team_count) VALUES (1, $1, $2)",
                [seed.source, seed.entries.count])
            return seed.entries.count
        }
    }

    private static func isSeeded(_ connection: PostgreSQLConnection) throws -> Bool {
        try connection.execute("SELECT EXISTS (SELECT 1 FROM seed_marker)").scalar == "t"
    }

    @discardableResult
    public func importTeams(
        from source: SeedSource, skippingExisting: Bool = false, progress: ImportProgress? = nil
    ) throws -> (imported: Int, skipped: Int) {
        let entries = try source.entries(), file = source.file
        return try transaction("add teams") { connection in
            let imported = try Self.insert(
                entries, file: file, skippingExisting: skippingExisting, connection, progress: progress)
            return (imported, entries.count - imported)
        }
    }

    /// Rows per `INSERT … SELECT FROM unnest(…)`: one round trip each.
    static let importBatchSize = 5000

    /// An insert of a batch of teams, one array parameter per user-set field, skipping names
    /// the store holds.
    private static let importSQL =
        "INSERT INTO team (\(PostgreSQLSchema.userColumns)) SELECT * FROM unnest("
        + Team.userFields.indices.map { "$\($0 + 1)::" + (Team.userFields[$0].isNumber ? "bigint[]" : "text[]") }
        .joined(separator: ", ") + ") ON CONFLICT ((\(PostgreSQLSchema.foldedName))) DO NOTHING"

    /// Inserts entries in batches inside the caller's transaction; a zone matching one in the
    /// store ignoring case takes its spelling. Returns how many were inserted.
    private static func insert(
        _ entries: [SeedEntry], file: String, skippingExisting: Bool, _ connection: PostgreSQLConnection,
        progress: ImportProgress?
    ) throws -> Int {
        var zoneSpelling: [String: String] = [:]
        for row in try connection.execute("SELECT DISTINCT qualifying_zone FROM team").rows {
            if let zone = row[0] { zoneSpelling[NoCase.key(zone)] = zone }
        }
        var inserted = 0
        for start in stride(from: 0, to: entries.count, by: importBatchSize) {
            let batch = entries[start..<min(start + importBatchSize, entries.count)]
            let keys = batch.map { NoCase.key($0.teamName) }
            let present = Set(
                try connection.execute(
                    "SELECT \(PostgreSQLSchema.foldedName) FROM team"
                        + " WHERE \(PostgreSQLSchema.foldedName) = ANY($1::text[])",
                    [PostgreSQLConnection.arrayLiteral(keys)]
                ).rows.compactMap { $0[0] })
            if !skippingExisting, let index = keys.firstIndex(where: present.contains) {
                let entryIndex = start + index
                throw WorldCupError.seedInvalid(
                    SeedProblem(
                        file: file, entryIndex: entryIndex, field: "teamName",
                        message: "a team named \"\(entries[entryIndex].teamName)\" is already in the store",
                        remedy: .skipTeamsInStore))
            }
            let teams = batch.map { entry in
                var team = entry.team
                let key = NoCase.key(team.qualifyingZone)
                team.qualifyingZone = zoneSpelling[key] ?? team.qualifyingZone
                zoneSpelling[key] = team.qualifyingZone
                return team
            }
            inserted += try connection.execute(
                Self.importSQL,
                Team.userFields.map { field in
                    PostgreSQLConnection.arrayLiteral(teams.map { field.value(of: $0).arrayElement })
                }
            ).affectedRows
            progress?(ImportStatus(teams: inserted, share: Double(start + batch.count) / Double(entries.count)))
        }
        return inserted
    }

    /// Prunes the change history to its newest rows and forgets the score keys older than a
    /// week, at most once a minute: the history grows by one row per change, and a screen that
    /// falls further behind refetches once; the keys by one per score, and a score is sent
    /// again within seconds. Only on a connection already open, so that an idle moment never
    /// waits for a server that is away. A role that may not delete history (a scorer's) leaves
    /// it to the organiser's screens and `serve`; every role forgets old keys, through the
    /// owner's function.
    public func tidyWhileIdle() {
        let now = ContinuousClock.now
        if let lastPruned, now - lastPruned < PostgreSQLSchema.pruneInterval { return }
        guard let connection else { return }
        lastPruned = now
        try? PostgreSQLChangeFeed.prune(keeping: PostgreSQLSchema.historyKept, in: connection)
        _ = try? connection.execute("SELECT \(PostgreSQLSchema.forgetOldScoreKeys)()")
    }

    // MARK: - Reads

    public func standings() throws -> [ZoneStanding] {
        var request = PostgreSQLSchema.standingsRequest
        request.fetchBatchSize = 0
        let controller = FetchedResultsController<Team>(
            fetchRequest: request, conninfo: conninfo, connectionDefaults: followDefaults,
            sectionNameKeyPath: PostgreSQLSchema.column(Team.sectionAttribute))
        do {
            try controller.performFetch()
            return try (controller.sections ?? []).map { ZoneStanding(zone: $0.name, teams: $0.objects) }
        } catch let error as PostgreSQLError {
            throw translate(error, action: "read teams")
        }
    }

    public func standingsRequest(nameContaining text: String) -> TableFetchRequest {
        PostgreSQLSchema.standingsRequest.narrowed(toNamesContaining: text)
    }

    /// A results controller over the standings that follows every machine's commits through
    /// the change feed, and keeps the last standings while the server is away.
    public func standingsController(cacheDirectory: String?) -> FetchedResultsController<Team> {
        FetchedResultsController<Team>(
            fetchRequest: PostgreSQLSchema.standingsRequest, conninfo: conninfo,
            connectionDefaults: followDefaults,
            sectionNameKeyPath: PostgreSQLSchema.column(Team.sectionAttribute),
            cacheName: cacheDirectory.map { _ in StandingsCacheName.make(for: displayName, resolvingFilePath: false) },
            cacheDirectory: cacheDirectory.map { URL(fileURLWithPath: $0) })
    }
}
