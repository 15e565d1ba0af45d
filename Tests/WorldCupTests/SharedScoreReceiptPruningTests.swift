import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing
import WorldCupModel

@testable import WorldCupStores

/// On PostgreSQL, too, every score keeps its key so that the same score sent again counts
/// once, and an idle store forgets the keys older than ``TeamStore/receiptsKept``: also a
/// scorer's (a `serve` at a venue runs as one), whose role may not delete receipts itself.
@Suite struct SharedScoreReceiptPruningTests {
    @Test func aScorersIdleMomentForgetsOldKeysAndKeepsRecentOnes() throws {
        let database = try SharedDatabase()
        _ = try PostgreSQLTeamStore.open(conninfo: database.uri())
        try database.createRoles()
        let owner = try database.connect()
        try owner.execute("INSERT INTO team (team_name, qualifying_zone) VALUES ('Ghana', 'Africa')")
        let scorer = try PostgreSQLTeamStore.open(conninfo: database.uri(role: "scorer"))
        let ghana = try #require(try scorer.teamsInStandingsOrder().first?.id)
        let (old, recent) = (ScoreKey(), ScoreKey())
        #expect(try scorer.addWin(teamID: ghana, key: old)?.wins == 1)
        #expect(try scorer.addWin(teamID: ghana, key: recent)?.wins == 2)
        try owner.execute(
            "UPDATE score_receipt SET recorded_at = now() - make_interval(secs => $1) WHERE key = $2::uuid",
            [Double(TeamStore.receiptsKept.components.seconds + 3600), old.description])
        func receipts() throws -> [String] {
            try owner.execute("SELECT key::text FROM score_receipt ORDER BY key").rows.map { $0[0]! }
        }
        #expect(try receipts().count == 2)

        scorer.tidyWhileIdle()

        #expect(try receipts() == [recent.description], "the old key is forgotten, the recent one kept")
        #expect(try scorer.addWin(teamID: ghana, key: recent)?.wins == 2, "a recent key still counts once")
    }
}
