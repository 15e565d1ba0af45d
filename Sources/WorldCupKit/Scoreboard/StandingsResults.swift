import FetchedResults
import GRDB

extension Team {
    /// The tutorial's fetch request: every team, `[qualifyingZone ↑, wins ↓, teamName ↑]`, with
    /// the same collations as the store's columns so the order equals `ORDER BY` exactly.
    public static let standingsRequest = TableFetchRequest(table: Team.databaseTableName, sortDescriptors: [
        ColumnSortDescriptor(key: "qualifyingZone", collation: .noCase),
        ColumnSortDescriptor(key: "wins", ascending: false),
        ColumnSortDescriptor(key: "teamName", collation: .noCase),
    ])
}

extension TeamStore {
    /// A results controller over the standings, sectioned by qualifying zone.
    public func standingsController() -> FetchedResultsController<Team> {
        FetchedResultsController(
            fetchRequest: Team.standingsRequest, database: pool, sectionNameKeyPath: "qualifyingZone")
    }
}
