import FetchedResultsSQLite
import Foundation
import GRDB
import WorldCupModel

extension TeamStore {
    /// A results controller over the standings, sectioned by qualifying zone, following every
    /// writer's commits (this program's, other processes' through the change history).
    ///
    /// - Parameter cacheDirectory: where to keep the standings' cache between launches (one
    ///   file per store), or nil for none.
    public func standingsController(cacheDirectory: String?) -> FetchedResultsController<Team> {
        FetchedResultsController(
            fetchRequest: Team.standingsRequest, store: SQLiteStore(database: pool),
            sectionNameKeyPath: Team.sectionAttribute,
            cacheName: cacheDirectory.map { _ in StandingsCacheName.make(for: path, resolvingFilePath: true) },
            cacheDirectory: cacheDirectory.map { URL(fileURLWithPath: $0) }, decode: { try Team(row: $0) })
    }

    public func standingsRequest(nameContaining text: String) -> TableFetchRequest {
        Team.standingsRequest.narrowed(toNamesContaining: text)
    }
}
