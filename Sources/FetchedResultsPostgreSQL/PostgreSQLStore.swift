import FetchedResults

import struct Foundation.URL

/// A fetched results controller's store on PostgreSQL, through libpq: the controller's reads,
/// its writes, and the change feed that tells it what every machine committed.
///
/// ```swift
/// let controller = FetchedResultsController(
///     fetchRequest: request, conninfo: "postgresql://scoreboard@db.example/league", recordType: Team.self)
/// ```
///
/// **How changes are seen.** The fetched table (and each related table) has a
/// ``PostgreSQLChangeFeed``: triggers record every changed row's id in the writing transaction
/// itself, and nothing else (no `NOTIFY`: it would make every writer's commit wait for every
/// other's). A look reads the feed from the controller's position and the touched rows in one
/// statement (one round trip, one snapshot); a look that finds nothing is one cheap query. A
/// look of a loop waits for its rows a few milliseconds at most: a slow server or a cut link
/// never holds the loop up (the socket wakes it when the rows arrive). On a primary the store
/// also listens for commits a writer announces (``PostgreSQLChangeFeed/announce(in:)``), which
/// wake the loop at once; it needs no notification, so it follows a hot standby or a
/// connection pooler as well, at its looks' pace.
///
/// **Connections.** The store owns one connection, made from `conninfo` as `psql` would (URI or
/// keywords, `PG*` variables, `~/.pgpass`, `sslmode`). When it breaks, the controller keeps its
/// last results, and each later look takes a reconnection a step further without blocking
/// (with back-off: at once, then after 50 ms, doubling up to 2 s; ``nextLookDeadline`` says
/// when); once back the controller catches up in one change set, or refetches when the
/// history it had not read was pruned.
///
/// **What wakes a loop.** ``nextLookDeadline``: while tracking, the store looks on a
/// ``LookPace``: quickly after a look that found changes (1 ms by default), up to a frame
/// apart while changes keep coming (16 ms by default: a look then reads many), and, while
/// nothing changes, less and less often (doubling up to every 100 ms by default: what an idle
/// follower costs the server).
/// ``wakeDescriptor`` is the connection's socket, readable when the connection breaks; a
/// connection cut without a word is found by TCP keepalives, which the ``connectionDefaults``
/// may set.
///
/// **A progressive fetch over a network.** With a batch size, each step of `loadMoreRows(_:)`
/// sends the next step's read before it hands over its own rows (see
/// ``readAhead(limit:after:unchangedSince:)``), so that the server's work and the program's
/// overlap instead of waiting for each other. A step first looks at the feed as always; rows
/// read ahead are used only when nothing was committed since they were asked for.
public final class PostgreSQLStore: ResultsStore {
    public typealias Row = PostgreSQLRow
    public typealias SortValues = [String?]
    public typealias Position = PostgreSQLChangeFeed.Position
    public typealias Snapshot = PostgreSQLConnection
    public typealias WriteContext = PostgreSQLConnection

    /// How to reach the server, as `psql` reads it.
    public let conninfo: String
    /// Connection parameters used when `conninfo` and the `PG*` variables leave them out (a
    /// `connect_timeout`, keepalives): see ``PostgreSQLConnection/init(_:defaults:)``.
    public var connectionDefaults: [String: String]

    var query: PostgreSQLQuery? {
        didSet { lookStatement = nil }
    }
    /// A look's statement for the request and its observed tables' parameter, made at its first
    /// look (see `changes(since:in:)`).
    var lookStatement: (sql: String, tables: String)?
    var sectionNameKeyPath: String?
    /// The connection, while it is up.
    private(set) var connection: PostgreSQLConnection?
    /// The read sent ahead on the connection (see ``readAhead(limit:after:unchangedSince:)``).
    var sentReadAhead: (boundary: LoadBoundary<[String?]>, limit: Int, position: Position)?
    /// The position a look's statement was sent ahead for, while its rows are on their way.
    var sentLook: Position?
    /// The cache validity read on a connection (see ``cacheValidity(in:)``).
    var knownValidity: (connection: PostgreSQLConnection, validity: CacheValidity)?
    /// An event loop's look began (``didWake(inLoop:)``): its statement need not be waited for.
    var lookBegan = false
    /// How long an event loop's look waits for its rows before it returns and
    /// lets the loop go on; short enough that no key waits for a look.
    static let lookPatience = Duration.milliseconds(10)
    /// How many steps of a progressive fetch took rows read ahead, for a program's statistics.
    public internal(set) var stepsReadAhead = 0
    private var tracking = false
    /// ``nextLookDeadline`` calls for a look now: a read outside a look reconnected after a loss
    /// (the commits made meanwhile may be many). A look or a fetch clears it, and so does
    /// ``stopTracking()``.
    var lookIsDue = false
    /// How often to look while tracking.
    public var lookPace: LookPace {
        get { looks.pace }
        set { looks.pace = newValue }
    }
    /// When the last look was, and how long to wait after it.
    var looks: LookSchedule
    private var reconnection = ReconnectionSchedule()
    /// A reconnection under way (see `connect()`).
    private var attempt: PostgreSQLConnectionAttempt?
    public private(set) var connectionState = ConnectionState.connected
    /// Where the standby this store reads stands in its replay, from the looks.
    var replica = ReplicaLag()

    /// How long the WAL that the hot standby this store reads has received waits for its replay
    /// (an estimate on this process's clock, short by at most one look's interval); zero when
    /// it has caught up, nil when the store reads a primary or has not looked yet.
    public var replicaLag: Duration? { replica.lag(at: .now) }

    /// A store reaching the server `conninfo` names.
    public init(conninfo: String, connectionDefaults: [String: String] = [:], lookPace: LookPace = .default) {
        self.conninfo = conninfo
        self.connectionDefaults = connectionDefaults
        looks = LookSchedule(pace: lookPace)
    }

    // MARK: - Preparing and tracking

    /// Text filters join the predicate in every read.
    public var filtersText: Bool { true }

    /// The request's predicate and its text filter, which matches as the controller's sort keys
    /// do: only text values, compared as the sort key's collation compares (`lower` in the `C`
    /// collation folds ASCII letters only).
    private static func predicate(
        _ predicate: PostgreSQLPredicate?, filteredBy filter: TextFilter?, sortKeys: [PostgreSQLSortKey]
    ) throws -> PostgreSQLPredicate? {
        guard let filter else { return predicate }
        let sortKey = sortKeys[filter.sortDescriptorIndex]
        guard sortKey.type == .text else {
            throw FetchedResultsError.textFilterUnsupported(key: sortKey.descriptor.key, reason: "it is not text")
        }
        // Unqualified, as a predicate names the fetched table's columns.
        let column = PostgreSQLChangeFeed.quotedName(sortKey.descriptor.key)
        let parameter = "$\((predicate?.arguments.count ?? 0) + 1)::text"
        let contains =
            sortKey.descriptor.foldsCase
            ? "strpos(lower(\(column) COLLATE \"C\"), lower(\(parameter) COLLATE \"C\")) > 0"
            : "strpos(\(column) COLLATE \"C\", \(parameter) COLLATE \"C\") > 0"
        var combined = PostgreSQLPredicate(sql: predicate.map { "(\($0.sql)) AND \(contains)" } ?? contains)
        combined.arguments = (predicate?.arguments ?? []) + [filter.matchedText]
        return combined
    }

    /// Resolves the request's relationships and reads its columns' types from the catalog.
    ///
    /// - Throws: `FetchedResultsError` for a request the store cannot follow (no id column, an
    ///   id column that is not an integer, a sort key naming no column or of a type whose order
    ///   cannot be kept in memory, a predicate of another store); ``PostgreSQLError`` when the
    ///   server cannot be reached.
    public func prepare(_ request: TableFetchRequest, sectionNameKeyPath: String?) throws {
        let predicate: PostgreSQLPredicate?
        switch request.predicate {
        case nil: predicate = nil
        case let given as PostgreSQLPredicate: predicate = given
        case let other?:
            throw FetchedResultsError.predicateForAnotherStore(
                predicate: "\(type(of: other))", expected: "PostgreSQLPredicate")
        }
        let related = try RelatedKeyPath.resolve(request, sectionNameKeyPath: sectionNameKeyPath)
        let connection = try connect()
        let keyColumn = request.rowIDColumn ?? "id"
        let columns = try columnTypes(of: request.table, connection)
        guard let keyType = columns[keyColumn] else {
            throw FetchedResultsError.tableWithoutRowID(table: request.table)
        }
        guard PostgreSQLSortKey.ValueType(typeName: keyType) == .integer else {
            throw FetchedResultsError.unsupportedRowIDType(table: request.table, column: keyColumn, type: keyType)
        }
        let sortKeys = try request.sortDescriptors.map { descriptor in
            let typeName: String
            if let keyPath = related.first(where: { $0.keyPath == descriptor.key }) {
                let table = keyPath.relationship.destinationTable
                guard let found = try columnTypes(of: table, connection)[keyPath.column] else {
                    throw FetchedResultsError.unknownRelatedColumn(keyPath: descriptor.key, table: table)
                }
                typeName = found
            } else {
                guard let found = columns[descriptor.key] else {
                    throw FetchedResultsError.unknownColumn(key: descriptor.key, table: request.table)
                }
                typeName = found
            }
            guard let type = PostgreSQLSortKey.ValueType(typeName: typeName) else {
                throw FetchedResultsError.unsupportedSortType(key: descriptor.key, type: typeName)
            }
            return PostgreSQLSortKey(descriptor: descriptor, type: type)
        }
        knownValidity = nil
        query = PostgreSQLQuery(
            request: request, keyColumn: keyColumn,
            predicate: try Self.predicate(predicate, filteredBy: request.textFilter, sortKeys: sortKeys),
            related: related, sortKeys: sortKeys)
        self.sectionNameKeyPath = sectionNameKeyPath
    }

    /// Each column's type name (`pg_type.typname`) by column name.
    ///
    /// - Throws: the server's own error ("relation … does not exist") for a table that does not
    ///   exist.
    private func columnTypes(of table: String, _ connection: PostgreSQLConnection) throws -> [String: String] {
        let name = PostgreSQLChangeFeed.quotedName(table)
        let rows = try connection.execute(
            """
            SELECT a.attname, t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
            WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
            """, [name])
        // No columns: most likely no such table, which the server says in its own words.
        if rows.rows.isEmpty { try connection.execute("SELECT $1::regclass", [name]) }
        var types: [String: String] = [:]
        for row in rows.rows { if let name = row[0], let type = row[1] { types[name] = type } }
        return types
    }

    /// Checks that every observed table has its change feed; from then on ``nextLookDeadline``
    /// says when to look.
    ///
    /// - Throws: `FetchedResultsError.changeFeedMissing(table:installation:)`.
    public func startTracking() throws {
        let connection = try connect()
        try requireChangeFeed(connection)
        tracking = true
        listen(on: connection)
    }

    /// Listens for ``PostgreSQLChangeFeed/announce(in:)`` on a primary, so that an announced
    /// commit wakes the loop through the socket. A hot standby refuses `LISTEN` (and receives no
    /// notifications): there the looks' pace alone finds commits.
    private func listen(on connection: PostgreSQLConnection) {
        guard tracking, connection.isIdle else { return }
        _ = try? connection.execute(
            "DO $$ BEGIN IF NOT pg_is_in_recovery() THEN LISTEN \(PostgreSQLChangeFeed.quotedName(PostgreSQLChangeFeed.channel)); END IF; END $$"
        )
    }

    /// Throws `changeFeedMissing` for the first observed table without its change feed, or
    /// whose feed an earlier version installed (without the function looks read).
    func requireChangeFeed(_ connection: PostgreSQLConnection) throws {
        for table in observedTables {
            let found = try connection.execute(
                """
                SELECT count(*) FROM pg_trigger
                WHERE tgname = $1 AND tgrelid = to_regclass($2) AND to_regprocedure($3) IS NOT NULL
                """,
                [
                    "fetched_results_" + table + "_rows", PostgreSQLChangeFeed.quotedName(table),
                    PostgreSQLChangeFeed.quotedName(PostgreSQLChangeFeed.changesFunction) + "(pg_snapshot)",
                ]
            ).scalar
            guard found == "1" else {
                throw FetchedResultsError.changeFeedMissing(
                    table: table,
                    installation: "PostgreSQLChangeFeed.install(on: \"\(table)\", keyColumn: …, in: connection)")
            }
        }
    }

    public func stopTracking() {
        tracking = false
        lookIsDue = false
        if let connection, connection.isIdle { _ = try? connection.execute("UNLISTEN *") }
    }

    /// The fetched table and every related table the request reaches.
    var observedTables: [String] {
        guard let query else { return [] }
        var tables = [query.table]
        for table in query.related.map(\.relationship.destinationTable) where !tables.contains(table) {
            tables.append(table)
        }
        return tables
    }

    // MARK: - Reading and writing

    /// `consistent`: a repeatable-read, read-only transaction; otherwise each statement sees its
    /// own snapshot (a look's one statement needs no transaction around it).
    public func read<T>(consistent: Bool, _ body: (PostgreSQLConnection) throws -> T) throws -> T {
        let connection = try connect()
        do {
            return
                consistent
                ? try connection.transaction(isolation: .repeatableRead, readOnly: true) { try body(connection) }
                : try body(connection)
        } catch let error as PostgreSQLError where error.isConnectionLost {
            lose(connection, error)
            throw error
        }
    }

    /// Runs `body` in a read-committed transaction on the store's connection, then `follow` on
    /// the same connection, which reads the feed after the commit.
    ///
    /// When the connection breaks while the commit is on its way, the server may or may not
    /// have committed: the error says the connection was lost, and only the data can tell
    /// (an idempotency key stored with the write, say).
    public func write<T>(
        _ body: (PostgreSQLConnection) throws -> T, then follow: (PostgreSQLConnection) throws -> Void
    ) throws -> T {
        let connection = try connect()
        // The look after a write delivers what it committed before the write returns.
        lookBegan = false
        do {
            let value = try connection.transaction { try body(connection) }
            try follow(connection)
            return value
        } catch let error as PostgreSQLError where error.isConnectionLost {
            lose(connection, error)
            throw error
        }
    }

    // MARK: - The connection

    /// The connection's socket: readable when the rows of a look still on its way arrive, when
    /// a commit is announced (``PostgreSQLChangeFeed/announce(in:)``, on a primary), or when the
    /// server closes the connection (or says something unasked), so that a loop finds a loss at
    /// once. Commits not announced do not make it readable: ``nextLookDeadline`` says when to
    /// look for them.
    public var wakeDescriptor: Int32? { connection?.socket }

    /// While reconnecting: the next attempt, or soon while one is under way (each look takes it
    /// a step further without blocking). While connected and tracking: the next look of the
    /// ``lookPace`` (now after a reconnection outside a look); nil when not tracking.
    public var nextLookDeadline: ContinuousClock.Instant? {
        guard connection == nil else {
            guard tracking else { return nil }
            return lookIsDue ? .now : looks.nextLook
        }
        return attempt != nil ? ContinuousClock.now + .milliseconds(20) : reconnection.nextAttempt ?? .now
    }

    /// A look begins (see ``LookPace``). Reads away what the server sent unasked (a notice, an
    /// announced commit), so that the socket turns quiet; a loss is found by the look. The look
    /// waits for its answer.
    public func didWake() { didWake(inLoop: false) }

    /// A look begins; an event loop's (`inLoop`) waits for its answer a few milliseconds at most.
    public func didWake(inLoop: Bool) {
        looks.began()
        lookBegan = inLoop
        _ = try? connection?.notifications()
    }

    public func isConnectionLoss(_ error: any Error) -> Bool {
        (error as? PostgreSQLError)?.isConnectionLost ?? false
    }

    /// The open connection, or a new one (listening when tracking). The first connection is
    /// made at once; a reconnection without blocking, a step per look, so that a program
    /// waiting for an unreachable server stays responsive.
    ///
    /// - Throws: ``PostgreSQLError/reconnecting(lastError:)`` while a reconnection is not due or
    ///   under way; ``PostgreSQLError/connectionFailed(_:)`` when an attempt failed.
    func connect() throws -> PostgreSQLConnection {
        if let connection { return connection }
        guard case let .reconnecting(_, lastError) = connectionState else {
            return try adopt(PostgreSQLConnection(conninfo, defaults: connectionDefaults))
        }
        let made: PostgreSQLConnection?
        do {
            if attempt == nil {
                guard reconnection.isAttemptDue else { throw PostgreSQLError.reconnecting(lastError: lastError) }
                attempt = try PostgreSQLConnectionAttempt(conninfo, defaults: connectionDefaults)
            }
            made = try attempt?.advance()
        } catch let error as PostgreSQLError where error.isConnectionLost {
            throw error
        } catch let error as PostgreSQLError {
            attempt = nil
            reconnection.failed()
            connectionState = .reconnecting(attempts: reconnection.failures, lastError: "\(error)")
            throw PostgreSQLError.reconnecting(lastError: "\(error)")
        }
        guard let made else { throw PostgreSQLError.reconnecting(lastError: lastError) }
        attempt = nil
        return try adopt(made)
    }

    /// Uses a new connection; after a loss, a look is due at once.
    private func adopt(_ made: PostgreSQLConnection) throws -> PostgreSQLConnection {
        if case .reconnecting = connectionState, tracking { lookIsDue = true }
        connection = made
        listen(on: made)
        reconnection.succeeded()
        connectionState = .connected
        return made
    }

    /// The connection broke: forget it, and reconnect at the next looks.
    func lose(_ lost: PostgreSQLConnection, _ error: PostgreSQLError) {
        guard connection === lost else { return }
        connection = nil
        sentReadAhead = nil
        sentLook = nil
        replica.forget()
        reconnection.lost()
        connectionState = .reconnecting(attempts: 0, lastError: "\(error)")
    }
}

/// How often a PostgreSQL store looks at the change feed while it follows: `quickest` after a
/// look that found changes when the look before it found none; while looks keep finding
/// changes, twice as long after each, up to `whileBusy`; while looks find nothing, twice as
/// long after each, up to `slowest`. A look whose answer is still on its way when the loop
/// goes on counts as neither.
///
/// A look that finds nothing is one query on the history's index by transaction; one that finds
/// changes reads them and the rows they touched in one statement, whose cost is mostly the
/// statement's own while a look finds a few changes. The defaults weigh the costs: after a
/// look that found a change, the next comes within about a millisecond; a table written without
/// a pause is read a frame's worth of changes at a time, so that eleven followers do not take
/// the server's CPU from its writers; idle followers (`serve` and its scoreboards) ask the
/// server little, and see a commit nobody announced at their next look, up to `slowest` later
/// (`make bench`, "Writers of a followed table", shows the costs). A commit its writer
/// announces (``PostgreSQLChangeFeed/announce(in:)``) is looked for at once, whatever the pace.
public struct LookPace: Sendable, Equatable {
    /// The wait after a look that found changes, the look before it having found none.
    public var quickest: Duration
    /// The longest wait while every look finds changes (at most `slowest`).
    public var whileBusy: Duration
    /// The longest wait, reached while nothing changes.
    public var slowest: Duration

    /// A pace from `quickest` (after a change) doubling to `whileBusy` while changes keep coming
    /// (`quickest` when nil: every look as soon as the last) and to `slowest` while idle.
    public init(quickest: Duration, whileBusy: Duration? = nil, slowest: Duration) {
        self.quickest = quickest
        self.slowest = max(slowest, quickest)
        self.whileBusy = min(max(whileBusy ?? quickest, quickest), self.slowest)
    }

    /// 1 ms after a change, doubling to 16 ms (a frame) while changes keep coming and to 100 ms
    /// while idle.
    public static let `default` = LookPace(
        quickest: .milliseconds(1), whileBusy: .milliseconds(16), slowest: .milliseconds(100))
}

/// When a following store looks next (see ``LookPace``).
struct LookSchedule {
    var pace: LookPace
    private(set) var lastLook: ContinuousClock.Instant?
    private(set) var wait: Duration
    /// The wait after the last look, when it found changes.
    private var waitAfterChanges: Duration?
    /// Whether the last look that began was answered and found nothing.
    private var lastFoundNothing = false

    init(pace: LookPace) {
        self.pace = pace
        wait = pace.quickest
    }

    /// The next look: now before the first.
    var nextLook: ContinuousClock.Instant { lastLook.map { $0 + wait } ?? .now }

    /// A look begins at `instant`: unless it finds changes, the next one waits twice as long as
    /// this one did (a look that fails, too).
    mutating func began(at instant: ContinuousClock.Instant = .now) {
        if lastFoundNothing { waitAfterChanges = nil }
        lastFoundNothing = true
        lastLook = instant
        wait = min(wait * 2, pace.slowest)
    }

    /// The feed, read from `instant` on, named changes: the next look soon, and a little later
    /// each time while every look finds changes.
    mutating func found(at instant: ContinuousClock.Instant) {
        let next = waitAfterChanges.map { min($0 * 2, pace.whileBusy) } ?? pace.quickest
        waitAfterChanges = next
        lastFoundNothing = false
        lastLook = instant
        wait = next
    }

    /// The look that began last was sent, and its answer is still on its way (the socket wakes
    /// the loop when it comes): it found neither changes nor nothing yet, so a stream of
    /// changes keeps its pace. Without this, an answer late because the server is busy (when
    /// the pace matters most) would bring the waits back to `quickest`.
    mutating func answerPending() {
        lastFoundNothing = false
    }
}

/// When to try reconnecting: at once after a loss, then after 50 ms, doubling up to 2 s.
struct ReconnectionSchedule {
    private(set) var failures = 0
    private(set) var nextAttempt: ContinuousClock.Instant?

    static let firstDelay = Duration.milliseconds(50)
    static let longestDelay = Duration.seconds(2)

    var isAttemptDue: Bool { nextAttempt.map { ContinuousClock.now >= $0 } ?? true }

    mutating func lost() {
        failures = 0
        nextAttempt = nil
    }

    mutating func failed() {
        failures += 1
        let delay = min(Self.firstDelay * (1 << min(failures - 1, 16)), Self.longestDelay)
        nextAttempt = ContinuousClock.now + delay
    }

    mutating func succeeded() {
        failures = 0
        nextAttempt = nil
    }
}

extension FetchedResultsController where Record: PostgreSQLRecord {
    /// A controller of `Record`s on PostgreSQL.
    ///
    /// - Parameters:
    ///   - fetchRequest: what to fetch and in which order.
    ///   - conninfo: the server, as `psql` takes it (`postgresql://user@host/db`, `host=… dbname=…`).
    ///   - connectionDefaults: connection parameters the conninfo and `PG*` variables may override.
    ///   - recordType: the type of the objects, made from each row by its own decoding.
    ///   - sectionNameKeyPath: the key whose values cut the results into sections (the first
    ///     sort descriptor's key), or nil for one section.
    ///   - cacheName: the name of a persistent cache, used when tracking.
    ///   - cacheDirectory: where cache files live; by default `$XDG_CACHE_HOME/FetchedResults`.
    public convenience init(
        fetchRequest: TableFetchRequest, conninfo: String, connectionDefaults: [String: String] = [:],
        recordType: Record.Type = Record.self, sectionNameKeyPath: (any ColumnNameRepresentable)? = nil,
        cacheName: String? = nil,
        cacheDirectory: URL? = nil
    ) {
        self.init(
            fetchRequest: fetchRequest,
            store: PostgreSQLStore(conninfo: conninfo, connectionDefaults: connectionDefaults),
            sectionNameKeyPath: sectionNameKeyPath, cacheName: cacheName, cacheDirectory: cacheDirectory,
            decode: { try Record(row: $0) })
    }
}

extension FetchedResultsController {
    /// ``FetchedResultsController/write(_:)`` on PostgreSQL: `body` runs in one read-committed
    /// transaction on the store's connection, and the changes it committed (and anyone's before
    /// it) are delivered before this returns.
    ///
    /// - Throws: the error of `body` or of the commit; a lost connection (then only the data
    ///   can tell whether the commit happened); `FetchedResultsError.writeContextMismatch` on a
    ///   controller of another store.
    @discardableResult
    public func write<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try write(context: PostgreSQLConnection.self, body)
    }
}
