/// Receives a controller's changes, once per look that finds committed transactions touching its
/// results (Core Data's `NSFetchedResultsControllerDelegate`), whichever store it follows. Every
/// method but the failure one has a default, so a delegate implements only the style it wants
/// — per-change callbacks, a snapshot, a `CollectionDifference`, or several — and gets exactly
/// those: the controller learns at the first change set which ones the delegate implements, and
/// stops computing the others.
///
/// Callbacks are delivered by the controller's own methods — `processPendingChanges()`,
/// `write(_:)`, `loadMoreRows(_:)`, `setFetchRequest(_:)` — once their database access is over,
/// on the caller's thread, in the caller's isolation: never on another thread (see
/// ``FetchedResultsController``'s Threading section). Inside them, the controller shows the
/// results after the change set.
public protocol FetchedResultsControllerDelegate<Record>: AnyObject {
    /// The type of the controller's objects: each callback hands over the controller itself,
    /// so that the delegate reads them (`object(at:)`) without keeping its own reference.
    associatedtype Record

    /// A batch begins: call `beginUpdates()` here.
    func controllerWillChangeContent(_ controller: any FetchedResultsControlling<Record>)
    /// A section was inserted (new index), deleted (old index) or renamed (`update`, new index).
    /// Reported before row changes.
    func controller(_ controller: any FetchedResultsControlling<Record>, didChange section: SectionChange)
    /// An object was inserted, deleted, moved or updated.
    func controller(_ controller: any FetchedResultsControlling<Record>, didChange object: ObjectChange)
    /// The batch ends: call `endUpdates()` here.
    func controllerDidChangeContent(_ controller: any FetchedResultsControlling<Record>)
    /// The whole new state as a snapshot (an alternative to the per-change callbacks).
    func controller(_ controller: any FetchedResultsControlling<Record>, didChangeContentWith snapshot: ResultsSnapshot)
    /// The change of the flat, ordered list of row ids (an alternative to the per-change callbacks).
    func controller(
        _ controller: any FetchedResultsControlling<Record>,
        didChangeContentWith difference: CollectionDifference<Int64>)
    /// The store's connection was lost or came back (a server store). While it is away the
    /// controller keeps its last results and tries again at each look.
    func controller(
        _ controller: any FetchedResultsControlling<Record>, didChangeConnectionState state: ConnectionState)
    /// The controller could not follow the store: a read failed, the table was dropped, the
    /// connection broke. It keeps its last good results and catches up at the next successful
    /// look. Required, as GRDB's `ValueObservation` requires `onError`: an error nobody hears is
    /// a silent wrong answer.
    func controller(_ controller: any FetchedResultsControlling<Record>, didFailWith error: any Error)
}

/// Every callback but the failure one is optional: implement those of the change style you use.
extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: any FetchedResultsControlling<Record>) {}
    public func controller(_ controller: any FetchedResultsControlling<Record>, didChange section: SectionChange) {}
    public func controller(_ controller: any FetchedResultsControlling<Record>, didChange object: ObjectChange) {}
    public func controllerDidChangeContent(_ controller: any FetchedResultsControlling<Record>) {}
    public func controller(
        _ controller: any FetchedResultsControlling<Record>, didChangeContentWith snapshot: ResultsSnapshot
    ) {
        (controller as? any DefaultCallbackNoting)?.noteDefaultCallback(.snapshot)
    }
    public func controller(
        _ controller: any FetchedResultsControlling<Record>,
        didChangeContentWith difference: CollectionDifference<Int64>
    ) {
        (controller as? any DefaultCallbackNoting)?.noteDefaultCallback(.difference)
    }
    public func controller(
        _ controller: any FetchedResultsControlling<Record>, didChangeConnectionState state: ConnectionState
    ) {}
}

/// The callback styles a delegate may implement besides the per-change callbacks, which cost
/// nothing when not implemented; these cost O(n) (the snapshot) or O(k) per change set.
enum OptionalCallbackStyle {
    case snapshot, difference
}

/// What a delegate implements of the optional styles: nil until its first change set.
struct DelegateStyles {
    var snapshot: Bool?
    var difference: Bool?
}

/// Hears that a delegate's callback is the protocol's default: the delegate does not implement
/// that style.
protocol DefaultCallbackNoting: AnyObject {
    func noteDefaultCallback(_ style: OptionalCallbackStyle)
}

extension FetchedResultsController: DefaultCallbackNoting {
    func noteDefaultCallback(_ style: OptionalCallbackStyle) {
        switch style {
        case .snapshot: delegateStyles.snapshot = false
        case .difference: delegateStyles.difference = false
        }
    }
}

/// A controller whatever its record type and store: what its delegate sees of it, and what code
/// that only places rows (a table view's binding) needs.
public protocol AnyFetchedResultsController: AnyObject {
    /// What the controller fetches.
    var fetchRequest: TableFetchRequest { get }
    /// The key path whose values cut the results into sections, or nil for one section.
    var sectionNameKeyPath: String? { get }
    /// Whether the store reaches its database.
    var connectionState: ConnectionState { get }
    /// The number of sections (0 before the first fetch).
    var numberOfSections: Int { get }
    /// The number of objects in a section.
    func numberOfObjects(inSection section: Int) -> Int
    /// The index path of the object with this row id, or nil when it is not in the results.
    func indexPath(forRowID rowID: Int64) -> IndexPath?
    /// The row id of the object at a valid index path.
    func rowID(at indexPath: IndexPath) -> Int64
}

/// A controller of `Record`s whatever its store: the controller's API but for writes, so that
/// code can hold controllers of different stores alike (an app whose user picks SQLite or
/// PostgreSQL at run time). ``FetchedResultsController`` is the one type that conforms.
public protocol FetchedResultsControlling<Record>: AnyFetchedResultsController {
    /// The objects' type.
    associatedtype Record

    /// Receives the changes.
    var delegate: (any FetchedResultsControllerDelegate<Record>)? { get set }
    /// How the last fetch got its ordering.
    var lastFetchSource: FetchSource? { get }
    /// Whether changes are followed.
    var isTracking: Bool { get }

    /// Fetches the results (see ``FetchedResultsController/performFetch()``).
    func performFetch() throws
    /// Fetches the first rows (see ``FetchedResultsController/performFetch(firstRows:)``).
    func performFetch(firstRows count: Int) throws
    /// Whether a progressive fetch still has rows to load.
    var hasRowsToLoad: Bool { get }
    /// The number of rows held now, loaded or not.
    var heldRowCount: Int { get }
    /// The change feed's position the results are exact at, as text (see ``FetchedResultsController/feedPosition``).
    var feedPosition: String? { get }
    /// Loads the next rows of a progressive fetch (see ``FetchedResultsController/loadMoreRows(_:)``).
    @discardableResult func loadMoreRows(_ count: Int) throws -> Bool
    /// Applies what was committed since the last look (see ``FetchedResultsController/processPendingChanges()``).
    @discardableResult func processPendingChanges() throws -> Bool
    /// Stops following changes.
    func stopTracking()
    /// Writes the cache file when the results changed since.
    func saveCache() throws

    /// A descriptor that turns readable when changes may be pending, or nil.
    var wakeDescriptor: Int32? { get }
    /// When a loop should look again even if the descriptor stays quiet, or nil.
    var nextLookDeadline: ContinuousClock.Instant? { get }

    /// All fetched objects in order, or nil before the first fetch.
    var fetchedObjects: [Record]? { get throws }
    /// The sections, or nil before the first fetch.
    var sections: [SectionInfo<Record>]? { get throws }
    /// The name of a section.
    func sectionName(at section: Int) -> String
    /// The object at a valid index path.
    func object(at indexPath: IndexPath) throws -> Record
    /// The object at a valid index path, or nil when its row was just deleted by another writer.
    func objectIfPresent(at indexPath: IndexPath) throws -> Record?
    /// The objects of a run of rows in one section, read at once (see
    /// ``FetchedResultsController/objectsIfPresent(inSection:rows:)``).
    func objectsIfPresent(inSection section: Int, rows: Range<Int>) throws -> [Record]
    /// The distinct index titles of the sections.
    var sectionIndexTitles: [String] { get }
    /// The index title for a section name (see
    /// ``FetchedResultsController/sectionIndexTitle(forSectionName:)``).
    func sectionIndexTitle(forSectionName sectionName: String) -> String?
    /// The number of full rows held in memory.
    var loadedRowCount: Int { get }
    /// Replaces the request of a live controller (see ``FetchedResultsController/setFetchRequest(_:)``).
    func setFetchRequest(_ request: TableFetchRequest) throws
    /// The section for an index title.
    func section(forSectionIndexTitle title: String, at index: Int) -> Int

    /// A search of a text sort value over the rows in memory (see
    /// ``FetchedResultsController/search(sortDescriptorAt:containing:narrowing:)``).
    func search(sortDescriptorAt index: Int, containing text: String, narrowing previous: TextSearch?) -> TextSearch
    /// The first row matching a search from a row, going round the end once.
    func indexPath(
        matching search: TextSearch, from start: IndexPath?, forward: Bool, includingStart: Bool
    ) -> SearchHit?
    /// Counts more of a search's matches for about `duration`.
    func countMatches(_ search: inout TextSearch, for duration: Duration)
    /// The matches counted so far, and whether that is all.
    func matchCount(of search: TextSearch) -> MatchCount
    /// The place (from 1) of a row among a search's matches, once counted that far.
    func matchOrdinal(of indexPath: IndexPath, in search: TextSearch) -> Int?
}

extension FetchedResultsController: FetchedResultsControlling {}
