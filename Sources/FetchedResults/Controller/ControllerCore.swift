import Synchronization

import struct Foundation.URL

/// Keeps the results of a fetch request in sections and in order, and tells its delegate how they
/// change with every committed transaction — Core Data's `NSFetchedResultsController`, for any
/// store: SQLite (`SQLiteStore`) or PostgreSQL (`PostgreSQLStore`).
///
/// ```swift
/// let controller = FetchedResultsController(
///     fetchRequest: request, store: SQLiteStore(database: pool), recordType: Team.self,
///     sectionNameKeyPath: "qualifyingZone")
/// controller.delegate = self
/// try controller.performFetch()
/// ```
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
open class FetchedResultsController<Record, Store: ResultsStore>: AnyFetchedResultsController {
    /// What is fetched and in which order; ``setFetchRequest(_:)`` changes it.
    public internal(set) var fetchRequest: TableFetchRequest
    /// The key whose values cut the results into sections (the first sort descriptor's key), or
    /// nil for one section.
    public let sectionNameKeyPath: String?
    /// The name of the persistent cache file, or nil for none (see ``saveCache()``).
    public let cacheName: String?
    /// Where cache files live.
    public let cacheDirectory: URL
    /// The database the results come from.
    public let store: Store
    /// Receives the changes (see Tracking). The callbacks it gets are those it implements: the
    /// per-object ones, the snapshot, the `CollectionDifference`, or several.
    public weak var delegate: (any FetchedResultsControllerDelegate<Record>)? {
        didSet { delegateStyles = DelegateStyles() }
    }
    /// Which optional callback styles the delegate implements, learnt at its first change set.
    var delegateStyles = DelegateStyles()
    /// How the last fetch got its ordering (from the store, the cache file, or a progressive load).
    public internal(set) var lastFetchSource: FetchSource?
    /// Whether the store reaches its database now.
    public var connectionState: ConnectionState { store.connectionState }
    /// The connection state last told to the delegate.
    var deliveredConnectionState = ConnectionState.connected

    /// Makes an object of a full row.
    let decode: (Store.Row) throws -> Record
    /// The ordered keys and their sections, nil before the first fetch.
    var state: ResultsState?
    /// Full rows in memory: all of them, or a few batches.
    var records: RecordCache<Store.Row>
    /// The feed position the results are exact at.
    var position: Store.Position?
    /// While a progressive fetch loads, the last row loaded as it was read: the results are
    /// exactly the matching rows whose keys are not after its key. Nil once every row is loaded.
    var loadBoundary: LoadBoundary<Store.SortValues>? {
        didSet { if loadBoundary == nil { cacheLoad = .none } }
    }
    /// How the steps of a progressive fetch use the cache file; nothing once every row is loaded.
    var cacheLoad = CacheLoad.none
    /// The key of the load boundary the store's read ahead continues from, while the results
    /// are as the step that sent it left them.
    var readAheadAfter: [UInt8]?
    /// An error left the results behind the store: the next look refetches.
    var needsRefetch = false
    /// Whether the results changed since the cache file was last written or read.
    var cacheIsStale = false
    /// Whether changes are followed (see Tracking).
    public internal(set) var isTracking = false
    /// The change sequences being iterated.
    var streams: [ChangeStream] = []
    /// The change set a store access made, delivered once the access is over (see
    /// `accessingStore(_:)`).
    var undelivered: ChangeSetBuilder.Result?
    /// Whether callbacks are under way: what would change the results is refused then.
    var isDelivering = false
    /// The thread inside the controller now, 0 for none (see `exclusive(_:_:)`).
    let threadInside = Atomic<UInt>(0)

    /// - Parameters:
    ///   - fetchRequest: what to fetch and in which order.
    ///   - store: the database to read and follow; it serves this controller alone.
    ///   - sectionNameKeyPath: the key whose values cut the results into sections (it must be
    ///     the first sort descriptor's key), or nil for one section.
    ///   - cacheName: the name of a persistent cache (Core Data's `cacheName`); used when
    ///     tracking, on a store with a change feed.
    ///   - cacheDirectory: where cache files live; by default `$XDG_CACHE_HOME/FetchedResults`.
    ///   - decode: makes an object of a full row (the store modules' initialisers pass the
    ///     record type's own decoding).
    public init(
        fetchRequest: TableFetchRequest, store: Store, sectionNameKeyPath: String? = nil, cacheName: String? = nil,
        cacheDirectory: URL? = nil, decode: @escaping (Store.Row) throws -> Record
    ) {
        self.fetchRequest = fetchRequest
        self.store = store
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        self.cacheDirectory = cacheDirectory ?? ResultsCacheFile.defaultDirectory
        self.decode = decode
        records = RecordCache(batchSize: fetchRequest.fetchBatchSize)
    }

    /// How the request cuts its rows into visible sections.
    var shape: ResultsShape { fetchRequest.shape(sectioned: sectionNameKeyPath != nil) }

    /// Whether callbacks have anyone to go to.
    var hasListeners: Bool { delegate != nil || !streams.isEmpty }

    // MARK: - Waking an event loop

    /// A descriptor that turns readable when changes may be pending: a `poll` loop waits on it,
    /// then calls ``processPendingChanges()``, which reads away what woke it. Nil: none now
    /// (look at ``nextLookDeadline``).
    public var wakeDescriptor: Int32? { store.wakeDescriptor }

    /// When a loop should look again even if ``wakeDescriptor`` stays quiet, or nil.
    public var nextLookDeadline: ContinuousClock.Instant? { store.nextLookDeadline }

    /// Stops following changes (see Tracking); the results stay as they are.
    public func stopTracking() {
        exclusive("stopTracking()") {
            guard isTracking else { return }
            isTracking = false
            store.stopTracking()
        }
    }

    /// Fetches the results in one consistent snapshot, with the feed position they are exact
    /// at, and starts or stops following changes (see Tracking). With a cache name, tracking and
    /// a valid cache file, the ordering comes from the file and only what the feed names since
    /// is read.
    ///
    /// - Throws: ``FetchedResultsError`` for a request without sort descriptors, whose first
    ///   sort descriptor does not group like the section key path, or that the store cannot
    ///   follow; the store's errors (the results then stay as they were).
    open func performFetch() throws {
        try exclusive("performFetch()") { try fetch(firstRows: nil) }
    }

    // MARK: - Section index

    /// The index title for a section name: by default its first letter, capitalised. Override
    /// to customise the section index.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }

    /// The distinct index titles of the sections, in section order.
    open var sectionIndexTitles: [String] {
        exclusive("sectionIndexTitles") { state?.sectionIndexTitles(sectionIndexTitle(forSectionName:)) ?? [] }
    }

    /// The section for an index title: the first section whose title it is (or, failing that,
    /// the section at `index`).
    open func section(forSectionIndexTitle title: String, at index: Int) -> Int {
        exclusive("section(forSectionIndexTitle:at:)") {
            state?.section(forSectionIndexTitle: title, at: index, sectionIndexTitle(forSectionName:)) ?? 0
        }
    }
}
