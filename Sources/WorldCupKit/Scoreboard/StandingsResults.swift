import FetchedResults

/// The standings as the scoreboard reads and follows them: a results controller over the
/// standings request, on whichever store holds the teams (see ``ScoreStore/standingsResults(cacheDirectory:)``).
///
/// The controllers of the two stores have the same sections, index paths and change sets (they
/// share `FetchedResultsCore`); this is the part of them the scoreboard uses, and how its event
/// loop learns that another writer committed.
public protocol StandingsResults: AnyObject {
    /// Receives each change set; weak, as a delegate is.
    var receiver: (any StandingsChangeReceiver)? { get set }

    /// Fetches the standings (from the cache when it is valid) and starts following commits;
    /// may fetch only the first screenfuls and leave the rest to ``loadMore()``.
    func performFetch() throws
    /// Whether rows remain to load after the first screenfuls (a progressive fetch).
    var isLoading: Bool { get }
    /// Loads the next part of the standings; their rows arrive as a change set of inserts.
    func loadMore() throws
    /// Applies what others committed since the last look; returns whether anything changed.
    func processExternalChanges() throws -> Bool
    /// After this program's own write: delivers its change set now, if the store did not yet.
    func followOwnWrite()
    /// Writes the cache if the standings changed since it was read or written.
    func saveCache() throws
    /// Whether the standings came from the cache or the store at the last fetch.
    var lastFetchSource: FetchSource? { get }

    var numberOfSections: Int { get }
    func numberOfObjects(inSection section: Int) -> Int
    func sectionName(at section: Int) -> String
    /// The team at `indexPath`, read from the store if it is not in memory; nil when another
    /// writer deleted it and the deletion has not been applied yet.
    func objectIfPresent(at indexPath: FetchedResults.IndexPath) throws -> Team?
    func rowID(at indexPath: FetchedResults.IndexPath) -> Int64
    func indexPath(forRowID rowID: Int64) -> FetchedResults.IndexPath?
    var sectionIndexTitles: [String] { get }
    func section(forSectionIndexTitle title: String, at index: Int) -> Int

    /// A search of the team names, from the standings in memory (the controller's
    /// `search(sortDescriptorAt:containing:narrowing:)` on the name's sort descriptor).
    func searchNames(containing text: String, narrowing previous: TextSearch?) -> TextSearch
    /// The first team matching `search` from `start`, going round the end once (the
    /// controller's `indexPath(matching:from:forward:includingStart:)`).
    func indexPath(
        matching search: TextSearch, from start: FetchedResults.IndexPath?, forward: Bool, includingStart: Bool
    ) -> SearchHit?
    /// Counts more of `search`'s matches for about `duration`.
    func countMatches(_ search: inout TextSearch, for duration: Duration)
    /// The matches counted so far, and whether that is all.
    func matchCount(of search: TextSearch) -> MatchCount
    /// The place (from 1) of the team at `indexPath` among the matches, once counted that far.
    func matchOrdinal(of indexPath: FetchedResults.IndexPath, in search: TextSearch) -> Int?

    /// The descriptor that turns readable when another writer may have committed (nil: none
    /// now, look at the timeout).
    var changeDescriptor: Int32? { get }
    /// How long an idle event loop may sleep before it must look again, in milliseconds; -1
    /// for as long as nothing wakes it.
    var lookTimeoutMilliseconds: Int32 { get }
    /// Called when ``changeDescriptor`` woke the loop, before the look.
    func didWake()
    /// Why the standings may be behind the store ("reconnecting…"), or nil while they follow it.
    var connectionProblem: String? { get }
}

/// Receives the standings' change sets: a results controller delegate's callbacks, whatever
/// the store.
public protocol StandingsChangeReceiver: AnyObject {
    func willChangeContent()
    func didChange(section: SectionChange)
    func didChange(object: ObjectChange)
    func didChangeContent()
    /// The standings could not follow a commit; they stay the last good ones.
    func didFail(_ error: any Error)
}
