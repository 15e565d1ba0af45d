import Synchronization

import struct Foundation.URL

/// The controller's implementation for one store type: everything ``FetchedResultsController``
/// does, generic over the store so that its rows and snapshots keep their own types. The public
/// controller holds one, behind ``AnyControllerCore``, so that apps and delegates name one type
/// whatever the store.
final class ControllerCore<Record, Store: ResultsStore> {
    /// What is fetched and in which order; ``setFetchRequest(_:)`` changes it.
    var fetchRequest: TableFetchRequest
    /// The key whose values cut the results into sections (the first sort descriptor's key), or
    /// nil for one section.
    let sectionNameKeyPath: String?
    /// The name of the persistent cache file, or nil for none (see ``saveCache()``).
    let cacheName: String?
    /// Where cache files live.
    let cacheDirectory: URL
    /// The database the results come from.
    let store: Store
    /// Receives the changes (see Tracking). The callbacks it gets are those it implements: the
    /// per-object ones, the snapshot, the `CollectionDifference`, or several.
    weak var delegate: (any FetchedResultsControllerDelegate<Record>)? {
        didSet { delegateStyles = DelegateStyles() }
    }
    /// The public controller that holds this core: what callbacks hand to the delegate, and
    /// whose section index titles (which a subclass may override) the sections carry.
    weak var owner: FetchedResultsController<Record>?
    /// Which optional callback styles the delegate implements, learnt at its first change set.
    var delegateStyles = DelegateStyles()
    /// How the last fetch got its ordering (from the store, the cache file, or a progressive load).
    var lastFetchSource: FetchSource?
    /// Whether the store reaches its database now.
    var connectionState: ConnectionState { store.connectionState }
    var replicaLag: Duration? { store.replicaLag }
    /// The connection state last told to the delegate.
    var deliveredConnectionState = ConnectionState.connected
    /// The controller's wait returned since the last look: the next look is an event loop's,
    /// which may leave a slow answer to the next wake rather than block the loop.
    var waitedSinceLastLook = false

    /// Makes an object of a full row.
    let decode: (Store.Row) throws -> Record
    /// The ordered keys and their sections, nil before the first fetch.
    var state: ResultsState?
    /// Full rows in memory: all of them, or a few batches.
    var records: RecordCache<Store.Row>
    /// The feed position the results are exact at.
    var position: Store.Position?
    /// While a text filter has narrowed the results in memory, the results it narrowed, so that
    /// a shorter text widens them in memory too (see ``setFetchRequest(_:)``).
    var filterBase: TextFilterBase?
    /// While a progressive fetch loads, the last row loaded as it was read: the results are
    /// exactly the matching rows whose keys are not after its key. Nil once every row is loaded.
    var loadBoundary: LoadBoundary<Store.SortValues>? {
        didSet {
            isLoadingProgressively = loadBoundary != nil
            if loadBoundary == nil { cacheLoad = .none }
        }
    }
    /// `loadBoundary != nil`, for the path every commit takes: testing the optional itself
    /// needs its generic type's metadata, looked up at each call.
    private(set) var isLoadingProgressively = false
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
    var isTracking = false
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
    init(
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
    var wakeDescriptor: Int32? { store.wakeDescriptor }

    /// When a loop should look again even if ``wakeDescriptor`` stays quiet, or nil.
    var nextLookDeadline: ContinuousClock.Instant? { store.nextLookDeadline }

    /// Stops following changes (see Tracking); the results stay as they are.
    func stopTracking() {
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
    func performFetch() throws {
        try exclusive("performFetch()") { try fetch(firstRows: nil) }
    }

    // MARK: - Section index

    /// The index title of a section name, as the public controller (or its subclass) gives it.
    func indexTitle(forSectionName name: String) -> String? {
        owner?.sectionIndexTitle(forSectionName: name) ?? FetchedResultsController<Record>.defaultIndexTitle(name)
    }

    /// The distinct index titles of the sections, in section order.
    var sectionIndexTitles: [String] {
        exclusive("sectionIndexTitles") { state?.sectionIndexTitles(indexTitle(forSectionName:)) ?? [] }
    }

    /// The section for an index title: the first section whose title it is (or, failing that,
    /// the section at `index`).
    func section(forSectionIndexTitle title: String, at index: Int) -> Int {
        exclusive("section(forSectionIndexTitle:at:)") {
            state?.section(forSectionIndexTitle: title, at: index, indexTitle(forSectionName:)) ?? 0
        }
    }

    /// The store, for code that knows its type.
    var anyStore: any ResultsStore { store }
}
