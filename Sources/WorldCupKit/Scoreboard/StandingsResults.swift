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
            cacheName: cacheDirectory.map { _ in standingsCacheName },
            cacheDirectory: cacheDirectory.map { URL(fileURLWithPath: $0) })
    }

    /// One cache per store file: "standings-" and a hash of the store's full path.
    var standingsCacheName: String {
        let fullPath = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a: stable across runs, unlike hashValue
        for byte in fullPath.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return "standings-" + String(hash, radix: 16)
    }
}
