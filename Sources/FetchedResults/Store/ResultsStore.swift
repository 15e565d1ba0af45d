/// A database as a results controller reads and follows it: the part of the controller that
/// speaks the database's language.
///
/// ``FetchedResultsController`` does everything else — the ordered results and their sections,
/// the loads (full, progressive, from the cache file), following changes, refetch and diff,
/// batches of rows, delivery of change sets, failure handling. A store serves one controller
/// and its request, with eleven requirements:
///
/// - **The request**: ``prepare(_:sectionNameKeyPath:)``.
/// - **Reads inside one snapshot**: ``read(consistent:_:)``; row ids and sort keys in the
///   request's order from a keyset position (``readOrdered(limit:after:skipping:in:)``); full rows
///   by id (``rows(_:matching:in:)``); the feed position a snapshot is exact at
///   (``position(in:)``).
/// - **What a row says**: its sort key (``key(of:rowID:)``, which
///   ``TableFetchRequest/sortKey(of:rowID:)`` makes from values), its section's name
///   (``sectionName(of:)``), the columns that changed between two versions
///   (``changedColumns(from:to:)``) and every column (``allColumns(in:)``).
/// - **The change feed**: what was committed since a position (``changes(since:in:)``).
/// - **Writes** on the controller's own connection (``write(_:then:)``), after which the
///   controller delivers the changes before the write returns.
///
/// The rest has defaults, for stores that have more to give: following (observers, `LISTEN`:
/// ``startTracking()``), what wakes an event loop (``wakeDescriptor``, ``nextLookDeadline``;
/// by default a look every ``defaultLookInterval``), the connection's state, the cache file's
/// validity (by default, no cache), and reads sent ahead of a progressive fetch's steps.
///
/// This package's stores are `SQLiteStore` (module `FetchedResultsSQLite`, through GRDB) and
/// `PostgreSQLStore` (module `FetchedResultsPostgreSQL`, through libpq); a store may live in
/// any package (see <doc:Stores>).
public protocol ResultsStore: AnyObject {
    /// A full row, as the store reads it (GRDB's `Row`, `PostgreSQLRow`).
    associatedtype Row
    /// A row's sort values as a keyset read needs them to continue after that row.
    associatedtype SortValues = [SortValue]
    /// A place in the store's change feed: the results are exact at one.
    associatedtype Position
    /// A handle on one snapshot of the database, valid only inside ``read(consistent:_:)`` and
    /// ``write(_:then:)``.
    associatedtype Snapshot
    /// What a write through the controller works with (a GRDB `Database`, a
    /// `PostgreSQLConnection`).
    associatedtype WriteContext

    // MARK: The request

    /// Checks `request` against the database (tables, columns, relationships, the predicate's
    /// kind) and prepares its reads; called by every `performFetch()` and `setFetchRequest(_:)`.
    ///
    /// - Throws: ``FetchedResultsError`` for a request the store cannot follow, or the
    ///   database's error.
    func prepare(_ request: TableFetchRequest, sectionNameKeyPath: String?) throws
    /// Whether ``prepare(_:sectionNameKeyPath:)`` adds a request's ``TextFilter`` to its reads
    /// (false by default: the controller then refuses requests that have one).
    var filtersText: Bool { get }

    // MARK: Reads

    /// Runs `body` with a snapshot. `consistent`: every read in `body` sees one state of the
    /// database; otherwise each statement may see its own (cheaper where a store must open a
    /// transaction for it).
    func read<T>(consistent: Bool, _ body: (Snapshot) throws -> T) throws -> T
    /// The change feed's position that `snapshot` is exact at.
    func position(in snapshot: Snapshot) throws -> Position
    /// Rows in the request's order: all, or the first `limit` after `boundary` (from the start
    /// when nil), as ids and sort keys; full rows too unless the request has a batch size. Rows
    /// `held` says are held are left out (``OrderedRead/count`` counts them all).
    func readOrdered(
        limit: Int?, after boundary: LoadBoundary<SortValues>?, skipping held: (Int64) -> Bool, in snapshot: Snapshot
    ) throws -> OrderedRead<Row, SortValues>
    /// Full rows by id; with `matching`, only those that still match the request's predicate.
    func rows(_ rowIDs: [Int64], matching: Bool, in snapshot: Snapshot) throws -> [Int64: Row]

    // MARK: What a row says

    /// The sort key of a full row whose id is `rowID` (see ``TableFetchRequest/sortKey(of:rowID:)``).
    func key(of row: Row, rowID: Int64) -> [UInt8]
    /// The first sort value of a full row, as text ("" for NULL): its section's name.
    func sectionName(of row: Row) -> String
    /// The columns whose values differ; every column when `old` is nil (not loaded).
    func changedColumns(from old: Row?, to new: Row) -> Set<String>
    /// Every column a full row holds, reported as changed when a row's old values are unknown.
    func allColumns(in snapshot: Snapshot) throws -> Set<String>

    // MARK: The change feed

    /// What was committed since `position`, by anyone: the touched row ids with those rows.
    func changes(since position: Position, in snapshot: Snapshot) throws -> FeedRead<Row, Position>

    // MARK: Writes

    /// Runs `body` in one transaction on the store's connection for this controller, then, once
    /// it committed, `follow` with a snapshot that sees the commit.
    ///
    /// - Throws: the error of `body` or of the commit (then nothing was committed, unless the
    ///   connection broke while the commit was on its way: see the store's documentation).
    func write<T>(_ body: (WriteContext) throws -> T, then follow: (Snapshot) throws -> Void) throws -> T

    // MARK: Optional: following, waking, the connection

    /// Starts noting changes for ``changes(since:in:)`` (observers, `LISTEN`); idempotent. By
    /// default nothing: the feed alone says what changed.
    ///
    /// - Throws: ``FetchedResultsError/changeFeedMissing(table:installation:)`` when a table the
    ///   request reads has no change feed.
    func startTracking() throws
    /// Stops noting changes.
    func stopTracking()
    /// A descriptor that turns readable when changes may be pending (a `poll` loop waits on it
    /// and then calls the controller's `processPendingChanges()`), or nil: none now. None by
    /// default.
    var wakeDescriptor: Int32? { get }
    /// When a loop should look again even if ``wakeDescriptor`` stays quiet (a safety look, a
    /// reconnection attempt), or nil: only when it turns readable. By default, in
    /// ``defaultLookInterval``.
    var nextLookDeadline: ContinuousClock.Instant? { get }
    /// Reads away what made ``wakeDescriptor`` readable; called at the start of every look.
    func didWake()
    /// ``didWake()``, saying whether the look is an event loop's, after the controller's wait:
    /// such a look may return without waiting for a slow answer (the loop looks again when the
    /// answer wakes it), while any other look delivers every change committed before it. By
    /// default, ``didWake()``: every look waits.
    func didWake(inLoop: Bool)
    /// Whether the store reaches its database; always by default.
    var connectionState: ConnectionState { get }
    /// How far behind its primary the replica the store reads is, or nil: not a replica (the
    /// default).
    var replicaLag: Duration? { get }
    /// Whether `error` means the connection broke (the results then stay, and the store
    /// reconnects), not that the database refused something; never by default.
    func isConnectionLoss(_ error: any Error) -> Bool

    // MARK: Optional: more reads

    /// Every full row that matches the request, by id; by default read in the request's order.
    func allRows(in snapshot: Snapshot) throws -> [Int64: Row]
    /// The first sort value of a row, as text ("" for NULL), read from the database; by default
    /// from the full row.
    func sectionName(ofRow rowID: Int64, in snapshot: Snapshot) throws -> String

    // MARK: Optional: the cache file

    /// What a cache file must match to describe this request on this database (the controller
    /// adds the request's own description). By default the store keeps no cache.
    ///
    /// - Throws: ``FetchedResultsError/changeFeedMissing(table:installation:)`` when a fetched
    ///   table has no change feed: a cache could then not be brought up to date;
    ///   ``FetchedResultsError/cacheUnsupported(store:)`` by default.
    func cacheValidity(in snapshot: Snapshot) throws -> CacheValidity
    /// A position as text, its feed position: what a cache file keeps and
    /// ``FetchedResultsController/feedPosition`` gives; nil when it cannot be kept. By default
    /// its `description`, for a `LosslessStringConvertible` position.
    func feedPosition(of position: Position) -> String?
    /// The position a feed position's text (``feedPosition(of:)``) spells; nil when the text is
    /// not one of this store's.
    func position(fromFeedPosition text: String) -> Position?

    // MARK: Optional: reading ahead

    /// Sends the read of the `limit` rows after `boundary` without waiting for it, so that the
    /// database runs it while the program goes on; the next step takes it with
    /// ``takeReadAhead(readingAhead:in:_:)``. Its rows count only if nothing was committed since
    /// `position`. Returns whether it was sent; by default nothing is sent.
    func readAhead(
        limit: Int, after boundary: LoadBoundary<SortValues>, unchangedSince position: Position
    ) throws -> Bool
    /// Waits until the read sent by ``readAhead(limit:after:unchangedSince:)`` is over, before
    /// the step that may take its rows opens the snapshot its look runs in: the rows are then
    /// never newer than what the look sees. Called holding no snapshot.
    func waitForReadAhead()
    /// Forgets the read sent ahead, whose rows will not be taken: the step's look found a
    /// change, or the results no longer end where the read starts.
    func discardReadAhead()
    /// Hands the rows the last ``readAhead(limit:after:unchangedSince:)`` read to `body` and
    /// returns true; returns false, doing nothing, when they cannot be taken (none sent, or a
    /// change since its position): the step then reads as usual. When they reach their limit,
    /// the `nextLimit` rows after them are read ahead in turn, before `body` runs. Called inside
    /// ``read(consistent:_:)``, whose `snapshot` is the one to read more in.
    func takeReadAhead(
        readingAhead nextLimit: Int, in snapshot: Snapshot, _ body: (OrderedRead<Row, SortValues>) throws -> Void
    ) throws -> Bool
}

/// How often a loop looks by default when a store gives no wake descriptor of its own.
public let defaultLookInterval = Duration.milliseconds(100)

extension ResultsStore {
    /// Reads ignore text filters, so requests with one are refused.
    public var filtersText: Bool { false }

    /// Nothing to start: the feed alone says what changed.
    public func startTracking() throws {}

    /// Nothing to stop.
    public func stopTracking() {}

    /// No descriptor: the loop looks at ``nextLookDeadline``.
    public var wakeDescriptor: Int32? { nil }

    /// A look every ``defaultLookInterval``.
    public var nextLookDeadline: ContinuousClock.Instant? { .now + defaultLookInterval }

    /// Nothing to read away.
    public func didWake() {}

    /// Every look waits for its answer.
    public func didWake(inLoop: Bool) { didWake() }

    /// Always reached.
    public var connectionState: ConnectionState { .connected }

    /// Not a replica.
    public var replicaLag: Duration? { nil }

    /// No connection to lose.
    public func isConnectionLoss(_ error: any Error) -> Bool { false }

    /// Every row in the request's order, then the full rows of those the read did not load.
    public func allRows(in snapshot: Snapshot) throws -> [Int64: Row] {
        let ordered = try readOrdered(limit: nil, after: nil, skipping: { _ in false }, in: snapshot)
        let missing = ordered.keys.rowIDs.filter { ordered.loaded[$0] == nil }
        guard !missing.isEmpty else { return ordered.loaded }
        return ordered.loaded.merging(try rows(missing, matching: true, in: snapshot)) { $1 }
    }

    /// The row's section name, from the full row.
    public func sectionName(ofRow rowID: Int64, in snapshot: Snapshot) throws -> String {
        try rows([rowID], matching: false, in: snapshot)[rowID].map(sectionName(of:)) ?? ""
    }

    /// No cache.
    public func cacheValidity(in snapshot: Snapshot) throws -> CacheValidity {
        throw FetchedResultsError.cacheUnsupported(store: "\(Self.self)")
    }

    /// Sends nothing: the store's reads cost no round trip.
    public func readAhead(
        limit: Int, after boundary: LoadBoundary<SortValues>, unchangedSince position: Position
    ) throws -> Bool { false }

    /// Nothing is ever read ahead.
    public func waitForReadAhead() {}

    /// Nothing is ever read ahead.
    public func discardReadAhead() {}

    /// Nothing is ever read ahead.
    public func takeReadAhead(
        readingAhead nextLimit: Int, in snapshot: Snapshot, _ body: (OrderedRead<Row, SortValues>) throws -> Void
    ) throws -> Bool { false }
}

extension ResultsStore where Position: LosslessStringConvertible {
    /// The position's text.
    public func feedPosition(of position: Position) -> String? { position.description }

    /// The position the text spells.
    public func position(fromFeedPosition text: String) -> Position? { Position(text) }
}

/// The last row a keyset read returned, as it was read: its key, and its sort values and row id
/// for the next read, which continues after it.
public struct LoadBoundary<SortValues> {
    /// The row's sort key.
    public var key: [UInt8]
    /// The row's sort values, in the store's form.
    public var values: SortValues
    /// The row's id.
    public var rowID: Int64

    /// A boundary at the row with these sort values and id, whose key is `key`.
    public init(key: [UInt8], values: SortValues, rowID: Int64) {
        self.key = key
        self.values = values
        self.rowID = rowID
    }
}

/// A boundary can be handed to a read ahead on another thread.
extension LoadBoundary: Sendable where SortValues: Sendable {}

/// Rows a store read in the request's order (see ``ResultsStore/readOrdered(limit:after:skipping:in:)``).
public struct OrderedRead<Row, SortValues> {
    package var keys = OrderedKeys.Builder()
    /// Full rows read with the keys (none when the request has a batch size).
    public var loaded: [Int64: Row] = [:]
    /// The section names of rows whose first sort value differs from the row before them.
    public var sectionNames: [Int64: String] = [:]
    /// Every row read, including those skipped.
    public var count = 0
    /// The row a read with a limit stopped at, when it read that many rows: the next read
    /// starts after it. Nil when the read found fewer rows, or had no limit.
    public var last: LoadBoundary<SortValues>?

    /// An empty read.
    public init() {}

    /// Adds the next row of the order, with its sort key (``ResultsStore/key(of:rowID:)``).
    public mutating func append(rowID: Int64, key: [UInt8]) {
        keys.append(rowID: rowID, key: key)
    }
}

/// What a store's change feed says was committed since a position.
public enum FeedRead<Row, Position> {
    /// The rows committed transactions touched (the fetched rows the feed names, and those whose
    /// relationships lead to related rows it names; empty when nothing was committed), the
    /// touched rows that still match the request, read in the same snapshot, and the position
    /// they are exact at.
    case changed(touched: Set<Int64>, rows: [Int64: Row], position: Position)
    /// The feed cannot say what changed (its history was pruned, a table was truncated or its
    /// schema changed, a change was announced without rows): only a refetch is exact.
    case mustRefetch
}

/// What a cache file must match to describe a request on a database.
public struct CacheValidity: Codable, Equatable, Sendable {
    /// Everything about the request that decides the results, as text.
    public var fingerprint: String
    /// The fetched tables' definitions, as text (a cache written before a schema change is
    /// not used after it).
    public var schema: String
    /// The database's own identity, so that a file made for another database is never used.
    public var storeIdentity: String

    /// A validity of these parts.
    public init(fingerprint: String, schema: String, storeIdentity: String) {
        self.fingerprint = fingerprint
        self.schema = schema
        self.storeIdentity = storeIdentity
    }
}

/// Whether a store reaches its database.
public enum ConnectionState: Sendable, Equatable {
    /// Connected (and listening for changes, when tracking).
    case connected
    /// The connection broke; the results are the last good ones. `attempts` reconnections failed
    /// so far, the last with `lastError`.
    case reconnecting(attempts: Int, lastError: String)
}
