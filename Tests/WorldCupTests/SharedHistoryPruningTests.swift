import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

@testable import WorldCupStores

/// On PostgreSQL the change history grows by one row per changed team; an idle moment of a
/// store whose role may delete history prunes it to its newest rows, at most once a minute,
/// and a scorer's store, which may not, leaves it and goes on scoring.
@Suite struct SharedHistoryPruningTests {
    @Test func anOrganisersIdleMomentPrunesTheHistoryAndAScorersLeavesIt() throws {
        let database = try SharedDatabase()
        _ = try PostgreSQLTeamStore.open(conninfo: database.uri())
        try database.createRoles()
        let owner = try database.connect()
        let teams = PostgreSQLSchema.historyKept + 2_000
        try owner.execute(
            """
            INSERT INTO team (team_name, qualifying_zone)
            SELECT 'Team ' || n, 'Zone ' || n % 8 FROM generate_series(1, \(teams)) AS n
            """)
        let inserting = try owner.execute("SELECT min(transaction)::text FROM fetched_results_history").scalar
        try owner.execute("UPDATE team SET wins = wins + 1")
        func historyRows() throws -> Int {
            Int(try owner.execute("SELECT count(*) FROM fetched_results_history").scalar!)!
        }
        #expect(try historyRows() == 2 * teams)

        let scorer = try PostgreSQLTeamStore.open(conninfo: database.uri(role: "scorer"))
        _ = try scorer.addWins(to: "Team 1")
        scorer.tidyWhileIdle()
        #expect(try historyRows() == 2 * teams + 1, "a scorer may not delete history")
        #expect(try scorer.addWins(to: "Team 1").wins == 3, "and its connection goes on")

        let organiser = try PostgreSQLTeamStore.open(conninfo: database.uri(role: "organiser"))
        _ = try organiser.addWins(to: "Team 2")
        organiser.tidyWhileIdle()
        // The newest rows kept reach into the update of every team, whose rows all stay; the
        // insert's go.
        #expect(try historyRows() == teams + 3)
        let insertRowsLeft = try owner.execute(
            "SELECT count(*) FROM fetched_results_history WHERE transaction = $1::xid8", [inserting]
        ).scalar
        #expect(insertRowsLeft == "0")

        try owner.execute("UPDATE team SET wins = wins + 1")
        organiser.tidyWhileIdle()
        #expect(try historyRows() == 2 * teams + 3, "not twice within a minute")
    }
}
