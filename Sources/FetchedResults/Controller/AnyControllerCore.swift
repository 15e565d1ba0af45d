import struct Foundation.URL

/// A ``ControllerCore`` whatever its store: what the public controller forwards to. Internal,
/// so that apps and delegates name one controller type, ``FetchedResultsController``, and the
/// store's own types (rows, snapshots, positions) stay inside the core.
protocol AnyControllerCore<Record>: AnyObject, DefaultCallbackNoting {
    associatedtype Record

    var owner: FetchedResultsController<Record>? { get set }
    var fetchRequest: TableFetchRequest { get }
    var delegate: (any FetchedResultsControllerDelegate<Record>)? { get set }
    var lastFetchSource: FetchSource? { get }
    var connectionState: ConnectionState { get }
    var replicaLag: Duration? { get }
    var waitedSinceLastLook: Bool { get set }
    var isTracking: Bool { get }
    var anyStore: any ResultsStore { get }
    var cacheFile: URL? { get }

    func performFetch() throws
    func performFetch(firstRows count: Int) throws
    var hasRowsToLoad: Bool { get }
    var heldRowCount: Int { get }
    var loadedRowCount: Int { get }
    var feedPosition: String? { get }
    func loadMoreRows(_ count: Int) throws -> Bool
    func setFetchRequest(_ request: TableFetchRequest) throws
    func processPendingChanges() throws -> Bool
    func write<Context, T>(context: Context.Type, _ body: (Context) throws -> T) throws -> T
    func stopTracking()
    func saveCache() throws

    var wakeDescriptor: Int32? { get }
    var nextLookDeadline: ContinuousClock.Instant? { get }

    var fetchedObjects: [Record]? { get throws }
    var sections: [SectionInfo<Record>]? { get throws }
    var numberOfSections: Int { get }
    func numberOfObjects(inSection section: Int) -> Int
    func sectionName(at section: Int) -> String
    func object(at indexPath: IndexPath) throws -> Record
    func objectIfPresent(at indexPath: IndexPath) throws -> Record?
    func objectsIfPresent(inSection section: Int, rows: Range<Int>) throws -> [Record]
    func rowID(at indexPath: IndexPath) -> Int64
    func indexPath(forRowID rowID: Int64) -> IndexPath?
    var sectionIndexTitles: [String] { get }
    func section(forSectionIndexTitle title: String, at index: Int) -> Int

    func search(sortDescriptorAt index: Int, containing text: String, narrowing previous: TextSearch?) -> TextSearch
    func indexPath(
        matching search: TextSearch, from start: IndexPath?, forward: Bool, includingStart: Bool
    )
        -> SearchHit?
    func countMatches(_ search: inout TextSearch, for duration: Duration)
    func matchCount(of search: TextSearch) -> MatchCount
    func matchOrdinal(of indexPath: IndexPath, in search: TextSearch) -> Int?

    /// A new listener for a change sequence (see ``ResultsChanges``).
    func openStream(_ kind: ChangeStream.Kind, _ policy: ChangeBufferingPolicy) -> ChangeStream
    /// A sequence ended.
    func close(_ stream: ChangeStream)
    /// Whether a sequence's step must fetch first: no results yet, or none tracked.
    var needsFetchForSequence: Bool { get }
    /// The current results as a snapshot, once fetched.
    func currentSnapshot() -> ResultsSnapshot?
}

extension ControllerCore: AnyControllerCore {
    var needsFetchForSequence: Bool { !isTracking || state == nil }

    func currentSnapshot() -> ResultsSnapshot? { state?.snapshot(reloaded: []) }
}
