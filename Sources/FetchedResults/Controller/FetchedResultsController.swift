import struct Foundation.URL

/// Keeps the results of a fetch request in sections and in order, and tells its delegate how they
/// change with every committed transaction — Core Data's `NSFetchedResultsController`, for any
/// store: SQLite (`SQLiteStore`) or PostgreSQL (`PostgreSQLStore`).
///
/// ```swift
/// let controller = FetchedResultsController(
///     fetchRequest: request, database: pool, recordType: Team.self, sectionNameKeyPath: "qualifyingZone")
/// controller.delegate = self
/// try controller.performFetch()
/// ```
///
/// One type whatever the store: `FetchedResultsController<Team>` follows a SQLite file or a
/// PostgreSQL server alike, and is what every callback hands to the delegate. The store's own
/// types stay inside it; ``store`` gives the store to code that knows its type.
///
/// Three tracking modes, as in Core Data: without a delegate the controller only holds what
/// ``performFetch()`` fetched; with a delegate it follows every commit; with a delegate and a
/// `cacheName` it also keeps its ordering in a file, so that the next launch skips the full
/// fetch (see ``saveCache()``).
///
/// Changes are incremental: a transaction that touches k rows re-reads those k rows (predicate
/// re-checked) and places them by binary search — O(k log n) — instead of refetching the whole
/// result. The store's change feed names the rows every writer touched (another connection,
/// process or machine); when it cannot (pruned history, a schema change), the controller
/// refetches and reports the difference.
///
/// ## Threading
///
/// A controller is not `Sendable`: the compiler keeps it in the isolation domain that made it
/// (the main actor, say), and nothing else ever calls it — the stores' observers only note what
/// committed, behind a lock, for the controller to read. Code in Swift 5 language mode can
/// share a controller between threads all the same; a second thread that calls it while
/// another is inside it stops the program with a message naming both.
///
/// Callbacks are delivered by the controller's own methods, on the caller's thread, once the
/// method's database access is over (so a callback may read the controller, load batches, and
/// read the database itself):
/// - ``write(_:)``: a write through the controller's connection; its changes (and anyone
///   else's before it) are delivered before it returns;
/// - ``processPendingChanges()``: what others committed since the last look (Core Data's
///   `processPendingChanges()`): call it when ``wakeDescriptor`` turns readable, or at
///   ``nextLookDeadline``, or after writing through another connection;
/// - ``loadMoreRows(_:)`` and ``setFetchRequest(_:)``, for what they load;
/// - ``changeSets(bufferingPolicy:)`` and ``snapshots(bufferingPolicy:)``, which wait for the
///   store themselves and deliver in the iterating task's isolation.
///
/// Inside a callback, the accessors show the results after the change set (see
/// <doc:ChangeCallbacks>); a method that would change them — a write, a look, a fetch — throws
/// ``FetchedResultsError/calledInsideCallback(method:)``.
///
/// ## Tracking
///
/// ``performFetch()`` starts following changes when a delegate is set or a change sequence is
/// being iterated, and stops following them otherwise; ``stopTracking()`` stops at once.
/// Setting the delegate does no database work: a delegate set after the fetch starts tracking
/// at the next look, which reports everything committed since the fetch. Following a table
/// needs its change feed (`ChangeHistory` on SQLite, `PostgreSQLChangeFeed` on PostgreSQL):
/// without it the fetch throws ``FetchedResultsError/changeFeedMissing(table:installation:)``.
///
/// ## Errors
///
/// After every look the controller equals a fresh fetch, or it says why not: an error met while
/// following changes goes to the delegate's ``FetchedResultsControllerDelegate/controller(_:didFailWith:)``,
/// the controller keeps its last good results, and the next look refetches and reports the
/// difference. A lost connection is not an error to throw: the delegate hears of it, and later
/// looks reconnect and catch up in one change set. Reading objects from the store never stops
/// the program: ``object(at:)`` and ``fetchedObjects`` throw what the store threw.
open class FetchedResultsController<Record> {
    /// The implementation for the store's type.
    let core: any AnyControllerCore<Record>

    /// The key whose values cut the results into sections (the first sort descriptor's key), or
    /// nil for one section.
    public let sectionNameKeyPath: String?
    /// The name of the persistent cache file, or nil for none (see ``saveCache()``).
    public let cacheName: String?
    /// Where cache files live.
    public let cacheDirectory: URL

    /// - Parameters:
    ///   - fetchRequest: what to fetch and in which order.
    ///   - store: the database to read and follow; it serves this controller alone.
    ///   - sectionNameKeyPath: the key whose values cut the results into sections (it must be
    ///     the first sort descriptor's key: a string or a typed name), or nil for one section.
    ///   - cacheName: the name of a persistent cache (Core Data's `cacheName`); used when
    ///     tracking, on a store with a change feed.
    ///   - cacheDirectory: where cache files live; by default `$XDG_CACHE_HOME/FetchedResults`.
    ///   - decode: makes an object of a full row (the store modules' initialisers pass the
    ///     record type's own decoding).
    public init<Store: ResultsStore>(
        fetchRequest: TableFetchRequest, store: Store, sectionNameKeyPath: (any ColumnNameRepresentable)? = nil,
        cacheName: String? = nil,
        cacheDirectory: URL? = nil, decode: @escaping (Store.Row) throws -> Record
    ) {
        let sectionKey = sectionNameKeyPath?.columnName
        let core = ControllerCore(
            fetchRequest: fetchRequest, store: store, sectionNameKeyPath: sectionKey, cacheName: cacheName,
            cacheDirectory: cacheDirectory, decode: decode)
        self.core = core
        self.sectionNameKeyPath = sectionKey
        self.cacheName = cacheName
        self.cacheDirectory = core.cacheDirectory
        core.owner = self
    }

    // MARK: - The request and the store

    /// What is fetched and in which order; ``setFetchRequest(_:)`` changes it.
    public var fetchRequest: TableFetchRequest { core.fetchRequest }

    /// The database the results come from, for code that knows its type
    /// (`controller.store as? SQLiteStore`).
    public var store: any ResultsStore { core.anyStore }

    /// Receives the changes (see Tracking). The callbacks it gets are those it implements: the
    /// per-object ones, the snapshot, the `CollectionDifference`, or several. Held weakly.
    public var delegate: (any FetchedResultsControllerDelegate<Record>)? {
        get { core.delegate }
        set { core.delegate = newValue }
    }

    /// How the last fetch got its ordering (from the store, the cache file, or a progressive load).
    public var lastFetchSource: FetchSource? { core.lastFetchSource }

    /// Whether the store reaches its database now.
    public var connectionState: ConnectionState { core.connectionState }

    /// How far the results may be behind the primary when the store reads a replica (a
    /// PostgreSQL hot standby): how long the changes it has received have waited for its
    /// replay. Zero when it has caught up; nil when the store reads no replica. Read it after
    /// ``processPendingChanges()``, say, to tell the user when a screen is behind.
    public var replicaLag: Duration? { core.replicaLag }

    /// Whether changes are followed (see Tracking).
    public var isTracking: Bool { core.isTracking }

    // MARK: - Fetching

    /// Fetches the results in one consistent snapshot, with the feed position they are exact
    /// at, and starts or stops following changes (see Tracking). With a cache name, tracking and
    /// a valid cache file, the ordering comes from the file and only what the feed names since
    /// is read.
    ///
    /// - Throws: ``FetchedResultsError`` for a request without sort descriptors, whose first
    ///   sort descriptor does not group like the section key path, or that the store cannot
    ///   follow; the store's errors (the results then stay as they were).
    open func performFetch() throws { try core.performFetch() }

    /// How many rows ``loadMoreRows(_:)`` reads by default: a few milliseconds of work, so an
    /// app that loads between key presses stays responsive.
    public static var defaultLoadStep: Int { 20_000 }

    /// Fetches only the first `count` rows of the results — what a screen shows first — and
    /// starts tracking as ``performFetch()`` does; ``loadMoreRows(_:)`` loads the rest.
    ///
    /// Not in Core Data: its fetch is all or nothing. Here a list of a million rows can show its
    /// first screen in a few milliseconds instead of waiting for the whole ordering. Until every
    /// row is loaded, the results are exactly the matching rows up to the last one loaded, in
    /// order, and behave like any results: changes committed meanwhile arrive as usual (a row
    /// that moves past the last loaded one leaves the results until the load reaches it again;
    /// one that moves before it enters), and each step of the load arrives as a change set of
    /// rows (and sections) inserted at the end. With a usable cache (see ``saveCache()``), the
    /// steps read the cache file instead, `count` rows of it per step (a cached row costs a small
    /// part of a stored one), and the step after the last one takes every row from it at once.
    ///
    /// Without tracking, the later steps read the store as it is then: rows that moved meanwhile
    /// may be missed or appear where they no longer are, as in any untracked results.
    ///
    /// - Parameter count: how many rows to fetch first, at least one.
    /// - Throws: as ``performFetch()``.
    public func performFetch(firstRows count: Int) throws { try core.performFetch(firstRows: count) }

    /// Loads the next `count` rows of a progressive fetch and tells the delegate, as a change
    /// set of rows inserted at the end; returns whether rows remain to load.
    ///
    /// When tracking, changes committed since the last look are applied first, in the same
    /// snapshot as the new rows, and delivered with them as one change set, so the results stay
    /// exactly the matching rows up to the last one loaded. While the connection is away,
    /// nothing is loaded and the load goes on once it is back.
    ///
    /// - Throws: the error that stopped it, which the delegate has heard too; the results stay
    ///   as they were, and the next call tries again.
    @discardableResult
    public func loadMoreRows(_ count: Int = defaultLoadStep) throws -> Bool { try core.loadMoreRows(count) }

    /// Whether a progressive fetch still has rows to load (see ``performFetch(firstRows:)``).
    public var hasRowsToLoad: Bool { core.hasRowsToLoad }

    /// The number of rows held now, loaded or not: every matching row once a load is done.
    public var heldRowCount: Int { core.heldRowCount }

    /// The number of full rows held in memory: every row without a batch size, at most a few
    /// batches with one.
    public var loadedRowCount: Int { core.loadedRowCount }

    /// The change feed's position the results are exact at, in the store's text form (the one a
    /// cache file keeps): the same commits give the same text in every process following the
    /// store, so a server can name its events by it and a client resume from it. Nil before a
    /// fetch, or when the store has no feed position to give.
    public var feedPosition: String? { core.feedPosition }

    /// Replaces the request of a live controller — a new predicate as a search box narrows the
    /// list, a new sort — and reports the move from the old results to the new ones as one
    /// change set, computed by comparing the two (GRDB's `setRequest`; Core Data's changed
    /// request followed by `performFetch()`). The section key path stays: the new request's
    /// first sort descriptor must still sort by it. Tracking goes on as before.
    ///
    /// Before the first fetch, the request is only replaced: ``performFetch()`` fetches it.
    ///
    /// - Throws: ``FetchedResultsError`` for a request the controller or the store cannot follow,
    ///   ``FetchedResultsError/calledInsideCallback(method:)`` from inside a change callback, or
    ///   the store's error; the controller then keeps its request and results.
    public func setFetchRequest(_ request: TableFetchRequest) throws { try core.setFetchRequest(request) }

    // MARK: - Following the store

    /// Applies what was committed since the last look — by this program through another
    /// connection, by another process, by another machine — and tells the delegate; returns
    /// whether anything touching the results was committed (Core Data's
    /// `processPendingChanges()`). Cheap when nothing was (one indexed query), so a loop can
    /// call it whenever ``wakeDescriptor`` turns readable and at ``nextLookDeadline``; it reads
    /// away what made the descriptor readable.
    ///
    /// A lost connection is not thrown: the delegate hears of it, ``connectionState`` says
    /// `reconnecting`, and later looks reconnect and catch up in one change set.
    ///
    /// - Throws: any other error (a dropped table, a refused query), which the delegate has
    ///   heard too; the results stay the last good ones, and the next look refetches.
    ///   ``FetchedResultsError/calledInsideCallback(method:)`` from inside a change callback.
    @discardableResult
    public func processPendingChanges() throws -> Bool { try core.processPendingChanges() }

    /// Runs `body` in one transaction on the store's connection for this controller, then
    /// delivers the changes it (and anyone before it) committed before returning — the way a
    /// table view wants a tap's write to show at once. Writes made elsewhere arrive at the next
    /// ``processPendingChanges()``. The store modules add this write with their own connection
    /// type (GRDB's `Database`, `PostgreSQLConnection`), which Swift then infers.
    ///
    /// - Throws: the error of `body` or of the commit (nothing was committed then, unless the
    ///   connection broke while the commit was on its way);
    ///   ``FetchedResultsError/writeContextMismatch(given:expected:)`` when `Context` is not what
    ///   the store writes with; ``FetchedResultsError/calledInsideCallback(method:)`` from inside
    ///   a change callback. An error met while delivering the committed changes is not thrown,
    ///   since the write is done: the delegate hears it, and the next look refetches.
    @discardableResult
    public func write<Context, T>(_ body: (Context) throws -> T) throws -> T {
        try core.write(context: Context.self, body)
    }

    /// ``write(_:)`` with the context's type named, for the store modules' own overloads.
    package func write<Context, T>(context: Context.Type, _ body: (Context) throws -> T) throws -> T {
        try core.write(context: context, body)
    }

    /// Stops following changes (see Tracking); the results stay as they are.
    public func stopTracking() { core.stopTracking() }

    /// A descriptor that turns readable when changes may be pending: a `poll` loop waits on it,
    /// then calls ``processPendingChanges()``, which reads away what woke it. Nil: none now
    /// (look at ``nextLookDeadline``).
    public var wakeDescriptor: Int32? { core.wakeDescriptor }

    /// When a loop should look again even if ``wakeDescriptor`` stays quiet, or nil.
    public var nextLookDeadline: ContinuousClock.Instant? { core.nextLookDeadline }

    // MARK: - The persistent cache

    /// The file of this controller's cache, or nil without a cache name.
    public var cacheFile: URL? { core.cacheFile }

    /// Writes the cache file, when there is a cache name and the results changed since the file
    /// was last written or read.
    ///
    /// The file need not be rewritten after every change: at the next launch, the changes
    /// committed since it was written are read from the store's change feed and applied on top
    /// of it. Apps call this when idle and when they quit.
    ///
    /// While the request has a ``TableFetchRequest/textFilter``, nothing is written: a filter
    /// someone is typing describes no results a later launch asks for, and the file keeps the
    /// results from before it (brought up to date at the next launch like any other).
    ///
    /// - Throws: ``FetchedResultsError/changeFeedMissing(table:installation:)`` when a fetched
    ///   table has no change feed, without which a cache could not be brought up to date; the
    ///   file system's error; the store's error when the connection is lost (the controller's
    ///   ``connectionState`` then says it is reconnecting, and a later call writes the file).
    public func saveCache() throws { try core.saveCache() }

    /// Deletes the cache file with this name, or every cache file when `name` is nil (Core
    /// Data's `deleteCache(withName:)`).
    public static func deleteCache(withName name: String?, in directory: URL? = nil) {
        ResultsCacheFile.delete(name: name, in: directory ?? ResultsCacheFile.defaultDirectory)
    }

    // MARK: - Reading the results

    /// All fetched objects in order, or nil before the first fetch. With a batch size, this
    /// reads every row from the store.
    ///
    /// - Throws: the store's error when a batch cannot be read, the record's decoding error, or
    ///   ``FetchedResultsError/objectDeleted(rowID:)`` for a row deleted before it was read.
    public var fetchedObjects: [Record]? { get throws { try core.fetchedObjects } }

    /// The sections, or nil before the first fetch. Each section's objects are read as
    /// ``fetchedObjects`` reads them.
    public var sections: [SectionInfo<Record>]? { get throws { try core.sections } }

    /// The number of sections (0 before the first fetch; an unsectioned request has one, even
    /// empty).
    public var numberOfSections: Int { core.numberOfSections }

    /// The number of objects in a section.
    public func numberOfObjects(inSection section: Int) -> Int { core.numberOfObjects(inSection: section) }

    /// The name of a section: the first sort value of its first row, as text ("" for NULL).
    /// Under a case-insensitive collation, rows spelled "kappa" and "Kappa" share a section,
    /// named after whichever comes first in the order; a fresh fetch and the tracked results
    /// always agree on it.
    public func sectionName(at section: Int) -> String { core.sectionName(at: section) }

    /// The object at an index path, which must be valid, as in Core Data (an index path outside
    /// the results stops the program: it is a mistake in the caller, not a state of the store).
    ///
    /// - Throws: as ``fetchedObjects``.
    public func object(at indexPath: IndexPath) throws -> Record { try core.object(at: indexPath) }

    /// The object at a valid index path, or nil when its row has just been deleted by another
    /// writer (possible with a batch size only, until that change is processed).
    ///
    /// - Throws: the store's error when the row's batch cannot be read, or the record's
    ///   decoding error.
    public func objectIfPresent(at indexPath: IndexPath) throws -> Record? { try core.objectIfPresent(at: indexPath) }

    /// The objects of a run of rows in one section, in order, with the rows not held read by
    /// one store read (a batch at a time would take one per ``TableFetchRequest/fetchBatchSize``
    /// rows); rows just deleted by another writer are left out. The rows read are not kept: this
    /// is for a reader of many rows at once (a copy of the results), which would otherwise
    /// push out the batches a view is showing.
    ///
    /// - Throws: the store's error when the rows cannot be read, or a record's decoding error.
    public func objectsIfPresent(inSection section: Int, rows: Range<Int>) throws -> [Record] {
        try core.objectsIfPresent(inSection: section, rows: rows)
    }

    /// The row id of the object at a valid index path.
    public func rowID(at indexPath: IndexPath) -> Int64 { core.rowID(at: indexPath) }

    /// The index path of the object with this row id, or nil when it is not in the results.
    public func indexPath(forRowID rowID: Int64) -> IndexPath? { core.indexPath(forRowID: rowID) }

    // MARK: - Section index

    /// The index title for a section name: by default its first letter, capitalised. Override
    /// to customise the section index.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        Self.defaultIndexTitle(sectionName)
    }

    /// The distinct index titles of the sections, in section order.
    open var sectionIndexTitles: [String] { core.sectionIndexTitles }

    /// The section for an index title: the first section whose title it is (or, failing that,
    /// the section at `index`).
    open func section(forSectionIndexTitle title: String, at index: Int) -> Int {
        core.section(forSectionIndexTitle: title, at: index)
    }

    /// Core Data's index title: the first letter, capitalised.
    static func defaultIndexTitle(_ sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }

    // MARK: - Text search

    /// A search for the rows whose value of sort descriptor `index` contains `text`, compared
    /// as that descriptor's collation compares (`NOCASE`: ASCII letters in either case), over
    /// the rows held in memory: see ``TextSearch``.
    ///
    /// - Parameters:
    ///   - index: the sort descriptor whose values are searched (0 for the first).
    ///   - text: the characters looked for.
    ///   - previous: the search this one follows as the user types on, if any: when `text`
    ///     contains its text, only the blocks of rows where it found matches are read.
    public func search(
        sortDescriptorAt index: Int, containing text: String, narrowing previous: TextSearch? = nil
    ) -> TextSearch {
        core.search(sortDescriptorAt: index, containing: text, narrowing: previous)
    }

    /// The first row matching `search` from `start` (nil: from the first row forward, the last
    /// back), going round the end of the results once; nil when none matches.
    ///
    /// - Parameters:
    ///   - search: what to look for.
    ///   - start: the row to look from.
    ///   - forward: down the results (`n`), or up (`N`).
    ///   - includingStart: whether the row at `start` may be the match (as a search is typed),
    ///     or only a row after it (before it, going back): the next match.
    public func indexPath(
        matching search: TextSearch, from start: IndexPath?, forward: Bool = true, includingStart: Bool = false
    ) -> SearchHit? {
        core.indexPath(matching: search, from: start, forward: forward, includingStart: includingStart)
    }

    /// Counts `search`'s matches for about `duration` (one chunk of rows at least), going on
    /// from where its count stopped; see ``matchCount(of:)``.
    public func countMatches(_ search: inout TextSearch, for duration: Duration) {
        core.countMatches(&search, for: duration)
    }

    /// The matches of `search` counted so far, and whether the count is complete (it starts
    /// again when the results changed since; see ``countMatches(_:for:)``). Before a fetch:
    /// none, and complete.
    public func matchCount(of search: TextSearch) -> MatchCount { core.matchCount(of: search) }

    /// The place (from 1) of the row at `indexPath` among `search`'s matches, when that row
    /// matches and the count has gone past it.
    public func matchOrdinal(of indexPath: IndexPath, in search: TextSearch) -> Int? {
        core.matchOrdinal(of: indexPath, in: search)
    }

    // MARK: - Change sequences

    /// The results as an asynchronous sequence of snapshots, for Swift concurrency: the current
    /// results first, then a snapshot after each look that changed them (GRDB's
    /// `ValueObservation.values(in:)`, for a controller).
    ///
    /// ```swift
    /// for try await snapshot in controller.snapshots() {
    ///     render(snapshot.sections)
    /// }
    /// ```
    ///
    /// The sequence waits for the store by itself (its ``wakeDescriptor`` and
    /// ``nextLookDeadline``) and looks in the iterating task's isolation, so the controller
    /// never leaves it. Its first step fetches, with tracking, when the controller does not
    /// track yet. By default only the newest snapshot waits for a slow consumer: a snapshot is
    /// the whole state, so the ones before it are of no use. An error the controller meets ends
    /// the sequence by throwing it. However the iteration ends — `break`, `return`, a throw, the
    /// task cancelled, the iterator released — the sequence stops listening, and tracking stops
    /// when nobody else listens.
    public func snapshots(
        bufferingPolicy: ChangeBufferingPolicy = .bufferingNewest(1)
    ) -> ResultsChanges<ResultsSnapshot, Record> {
        ResultsChanges(controller: self, kind: .snapshots, policy: bufferingPolicy)
    }

    /// The changes as an asynchronous sequence of change sets, one per look that changed the
    /// results, for code that applies them one by one (a table view's batch updates). Every
    /// change set is kept for a slow consumer by default: each one is relative to the one
    /// before it. Waits and ends as ``snapshots(bufferingPolicy:)`` does.
    public func changeSets(
        bufferingPolicy: ChangeBufferingPolicy = .unbounded
    ) -> ResultsChanges<ChangeSet, Record> {
        ResultsChanges(controller: self, kind: .changeSets, policy: bufferingPolicy)
    }
}

extension FetchedResultsController: DefaultCallbackNoting {
    func noteDefaultCallback(_ style: OptionalCallbackStyle) { core.noteDefaultCallback(style) }
}
