import Foundation
import TestSupport
import Testing

/// `serve` keeps a PostgreSQL change history from growing without end: when it starts (what
/// earlier writers left) and once a minute after, it prunes it to the newest 10,000 rows.
@Suite struct ServeHistoryPruningTests {
    @Test func serveOnPostgreSQLPrunesTheHistoryWhenItStarts() throws {
        let database = try SharedDatabase()
        let folder = TemporaryDirectory()
        let first = try ServeProcess(db: database.uri(), home: folder.path + "/home")
        #expect(first.stop() == 0)
        let connection = try database.connect()
        try connection.execute(
            "INSERT INTO team (team_name, qualifying_zone) SELECT 'Team ' || n, 'Zone' FROM generate_series(1, 12000) AS n"
        )
        try connection.execute("UPDATE team SET wins = wins + 1")
        func historyRows() throws -> Int {
            Int(try connection.execute("SELECT count(*) FROM fetched_results_history").scalar!)!
        }
        let teams = Int(try connection.execute("SELECT count(*) FROM team").scalar!)!
        #expect(try historyRows() > 2 * teams - 1, "the seed's, the insert's and the update's rows")

        let serve = try ServeProcess(db: database.uri(), home: folder.path + "/home")
        let deadline = Date().addingTimeInterval(15)
        while try historyRows() != teams, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        // The newest 10,000 rows are all the update's, so its rows alone stay.
        #expect(try historyRows() == teams)
        #expect(try serve.wins()["Team 1"] == 1, "and serve goes on with the standings")
        #expect(serve.stop() == 0)
    }
}
