import FetchedResults
import Foundation
import GRDB

extension Team {
    /// The tutorial's fetch request: every team, `[qualifyingZone ↑, wins ↓, teamName ↑]`, with
    /// the same collations as the store's columns so the order equals `ORDER BY` exactly.
    /// Teams are read a screenful at a time, so a store of a million teams costs only their
    /// order in memory.
    public static let standingsRequest = TableFetchRequest(Team.self, sortDescriptors: standingsOrder, fetchBatchSize: 100)
}

extension TeamStore {
    /// A results controller over the standings, sectioned by qualifying zone.
    ///
    /// - Parameter cacheDirectory: where to keep the standings' cache between launches (one
    ///   file per store), or nil for none.
    public func standingsController(cacheDirectory: String? = nil) -> FetchedResultsController<Team> {
        FetchedResultsController(
            fetchRequest: Team.standingsRequest, database: pool, sectionNameKeyPath: Team.Columns.qualifyingZone.name,
            cacheName: cacheDirectory.map { _ in StandingsCacheName.make(for: path, resolvingFilePath: true) },
            cacheDirectory: cacheDirectory.map { URL(fileURLWithPath: $0) })
    }

    public func standingsResults(cacheDirectory: String?) -> any StandingsResults {
        SQLiteStandings(controller: standingsController(cacheDirectory: cacheDirectory), databasePath: path)
    }
}

/// The standings on SQLite: the controller hears this process's commits as they happen and
/// other processes' through the store's change signal (inotify on the WAL).
final class SQLiteStandings: StandingsResults, FetchedResultsControllerDelegate {
    /// How often an idle scoreboard looks for other processes' commits when it cannot be told
    /// of them (no inotify).
    static let pollMilliseconds: Int32 = 100
    /// With a change signal, a look now and then all the same: a signal would miss a WAL file
    /// that another program deleted and made anew. Tests make it longer, so that a commit the
    /// signal missed cannot pass for one it caught.
    var safetyPollMilliseconds: Int32 = 5000

    private var pacer = LoadPacer()

    private let controller: FetchedResultsController<Team>
    private let signal: StoreChangeSignal?
    weak var receiver: (any StandingsChangeReceiver)?

    init(controller: FetchedResultsController<Team>, databasePath: String) {
        self.controller = controller
        signal = StoreChangeSignal(databasePath: databasePath)
        controller.delegate = self
    }

    func performFetch() throws { try controller.performFetch(firstRows: LoadPacer.firstRows) }
    var isLoading: Bool { controller.hasRowsToLoad }
    func loadMore() throws { try pacer.step { try controller.loadMoreRows($0) } }
    func processExternalChanges() throws -> Bool { try controller.processExternalChanges() }
    /// A write through the store's pool reaches the controller as it commits.
    func followOwnWrite() {}
    func saveCache() throws { try controller.saveCache() }
    var lastFetchSource: FetchSource? { controller.lastFetchSource }

    var numberOfSections: Int { controller.numberOfSections }
    func numberOfObjects(inSection section: Int) -> Int { controller.numberOfObjects(inSection: section) }
    func sectionName(at section: Int) -> String { controller.sectionName(at: section) }
    func objectIfPresent(at indexPath: FetchedResults.IndexPath) throws -> Team? { try controller.objectIfPresent(at: indexPath) }
    func rowID(at indexPath: FetchedResults.IndexPath) -> Int64 { controller.rowID(at: indexPath) }
    func indexPath(forRowID rowID: Int64) -> FetchedResults.IndexPath? { controller.indexPath(forRowID: rowID) }
    var sectionIndexTitles: [String] { controller.sectionIndexTitles }
    func section(forSectionIndexTitle title: String, at index: Int) -> Int { controller.section(forSectionIndexTitle: title, at: index) }

    private static let nameDescriptor = Team.standingsOrder.firstIndex { $0.key == Team.Columns.teamName.name }!
    func searchNames(containing text: String, narrowing previous: TextSearch?) -> TextSearch {
        controller.search(sortDescriptorAt: Self.nameDescriptor, containing: text, narrowing: previous)
    }
    func indexPath(
        matching search: TextSearch, from start: FetchedResults.IndexPath?, forward: Bool, includingStart: Bool
    ) -> SearchHit? {
        controller.indexPath(matching: search, from: start, forward: forward, includingStart: includingStart)
    }
    func countMatches(_ search: inout TextSearch, for duration: Duration) {
        controller.countMatches(&search, for: duration)
    }
    func matchCount(of search: TextSearch) -> MatchCount { controller.matchCount(of: search) }
    func matchOrdinal(of indexPath: FetchedResults.IndexPath, in search: TextSearch) -> Int? {
        controller.matchOrdinal(of: indexPath, in: search)
    }

    var changeDescriptor: Int32? { signal?.fileDescriptor }
    var lookTimeoutMilliseconds: Int32 { signal.map { $0.followUpTimeout() ?? safetyPollMilliseconds } ?? Self.pollMilliseconds }
    func didWake() { signal?.drain() }
    var connectionProblem: String? { nil }

    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) { receiver?.willChangeContent() }
    func controller(_ controller: AnyFetchedResultsController, didChange section: SectionChange) { receiver?.didChange(section: section) }
    func controller(_ controller: AnyFetchedResultsController, didChange object: ObjectChange) { receiver?.didChange(object: object) }
    func controllerDidChangeContent(_ controller: AnyFetchedResultsController) { receiver?.didChangeContent() }
    func controller(_ controller: AnyFetchedResultsController, didFailWith error: any Error) { receiver?.didFail(error) }
}
