import FetchedResultsPostgreSQL

/// The standings on PostgreSQL: the controller hears every machine's commits through its
/// connection's socket (a `NOTIFY` wakes it; the change feed is the truth), and while the
/// server is away it keeps the last standings and says so.
final class PostgreSQLStandings: StandingsResults, PostgreSQLResultsControllerDelegate {
    private let controller: PostgreSQLResultsController<Team>
    private let server: String
    private var pacer = LoadPacer()
    weak var receiver: (any StandingsChangeReceiver)?

    init(controller: PostgreSQLResultsController<Team>, server: String) {
        self.controller = controller
        self.server = server
        controller.delegate = self
    }

    func performFetch() throws { try controller.performFetch(firstRows: LoadPacer.firstRows) }
    var isLoading: Bool { controller.hasRowsToLoad }
    func loadMore() throws { try pacer.step { try controller.loadMoreRows($0) } }
    func processExternalChanges() throws -> Bool { try controller.processExternalChanges() }
    /// The store wrote on its own connection: the look reads it from the feed now, so the
    /// frame after the key shows it.
    func followOwnWrite() { _ = try? controller.processExternalChanges() }
    func saveCache() throws { try controller.saveCache() }
    var lastFetchSource: FetchSource? { controller.lastFetchSource }

    var numberOfSections: Int { controller.numberOfSections }
    func numberOfObjects(inSection section: Int) -> Int { controller.numberOfObjects(inSection: section) }
    func sectionName(at section: Int) -> String { controller.sectionName(at: section) }
    func objectIfPresent(at indexPath: IndexPath) throws -> Team? { try controller.objectIfPresent(at: indexPath) }
    func rowID(at indexPath: IndexPath) -> Int64 { controller.rowID(at: indexPath) }
    func indexPath(forRowID rowID: Int64) -> IndexPath? { controller.indexPath(forRowID: rowID) }
    var sectionIndexTitles: [String] { controller.sectionIndexTitles }
    func section(forSectionIndexTitle title: String, at index: Int) -> Int { controller.section(forSectionIndexTitle: title, at: index) }

    private static let nameDescriptor = PostgreSQLSchema.standingsOrder.firstIndex { $0.column == "team_name" }!
    func searchNames(containing text: String, narrowing previous: TextSearch?) -> TextSearch {
        controller.search(sortDescriptorAt: Self.nameDescriptor, containing: text, narrowing: previous)
    }
    func indexPath(
        matching search: TextSearch, from start: IndexPath?, forward: Bool, includingStart: Bool
    ) -> SearchHit? {
        controller.indexPath(matching: search, from: start, forward: forward, includingStart: includingStart)
    }
    func countMatches(_ search: inout TextSearch, for duration: Duration) {
        controller.countMatches(&search, for: duration)
    }
    func matchCount(of search: TextSearch) -> MatchCount { controller.matchCount(of: search) }
    func matchOrdinal(of indexPath: IndexPath, in search: TextSearch) -> Int? {
        controller.matchOrdinal(of: indexPath, in: search)
    }

    var changeDescriptor: Int32? { controller.socket }
    /// While connected, no look without a reason: a live connection delivers every `NOTIFY`,
    /// and one that breaks without a word (a cut cable) is found by TCP keepalives, which make
    /// the socket readable with an error. A timed look would block on a cut link instead.
    /// While reconnecting: when the next attempt is due.
    var lookTimeoutMilliseconds: Int32 {
        guard let deadline = controller.reconnectDeadline else { return -1 }
        return Int32(max(0, ((deadline - ContinuousClock.now) / .milliseconds(1)).rounded(.up)))
    }
    func didWake() {}
    var connectionProblem: String? {
        guard case let .reconnecting(_, lastError) = controller.connectionState else { return nil }
        let reason = lastError.prefix { $0 != "\n" }
        return "reconnecting to \(server)…" + (reason.isEmpty ? "" : " (\(reason))")
    }

    func controllerWillChangeContent(_ controller: AnyPostgreSQLResultsController) { receiver?.willChangeContent() }
    func controller(_ controller: AnyPostgreSQLResultsController, didChange section: SectionChange) { receiver?.didChange(section: section) }
    func controller(_ controller: AnyPostgreSQLResultsController, didChange object: ObjectChange) { receiver?.didChange(object: object) }
    func controllerDidChangeContent(_ controller: AnyPostgreSQLResultsController) { receiver?.didChangeContent() }
    func controller(_ controller: AnyPostgreSQLResultsController, didFailWith error: any Error) {
        // A lost connection shows as "reconnecting…" on the status line, not as an error.
        if case .reconnecting = controller.connectionState { return }
        receiver?.didFail(error)
    }
}
