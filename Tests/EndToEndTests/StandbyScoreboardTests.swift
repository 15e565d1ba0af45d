import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing
import ThrowawayPostgreSQL

/// The scoreboard given one URI that names a primary and its streaming standby (a league that
/// spreads its screens over a replica): the screen reads the standby, its wins go to the
/// primary, and every win shows on it. A primary and a standby of the test's own
/// (`pg_basebackup -R`), each in its folder, on its port, Unix sockets only.
@Suite(.serialized) struct StandbyScoreboardTests {
    @Test func aScreenOnTheStandbyShowsWinsScoredThroughThePrimary() throws {
        let primary = try TemporaryCluster(port: 5443)
        defer { primary.stop() }
        try PostgreSQLConnection(primary.connectionString).execute("CREATE DATABASE league")
        let onPrimary = "postgresql://postgres@/league?host=\(primary.socketFolder)&port=\(primary.port)"
        let seeded = try SharedScoreboardEndToEndTests.runWorldCup(["list", "--db", onPrimary])
        try #require(seeded.status == 0, "\(seeded.stderr)")
        let standby = try primary.makeStandby(port: 5444)
        defer { standby.stop() }
        let onStandby = "host=\(standby.socketFolder) port=\(standby.port) dbname=league user=postgres"
        let replicated = ContinuousClock.now + .seconds(30)
        while (try? PostgreSQLConnection(onStandby).execute("SELECT count(*) FROM team").scalar) != "32" {
            try #require(ContinuousClock.now < replicated, "the standby never had the teams")
            usleep(50_000)
        }
        let both =
            "postgresql://postgres@/league?host=\(primary.socketFolder),\(standby.socketFolder)"
            + "&port=\(primary.port),\(standby.port)"
        let directory = TemporaryDirectory()
        let terminal = try Tmux(
            command: "XDG_CACHE_HOME='\(directory.path)/cache' '\(WorldCupProcess.binary)' --db '\(both)' "
                + "--seed '\(WorldCupProcess.seedPath)'")
        #expect(terminal.waitFor("World Cup — 32 teams"), "\(terminal.lines)")
        let readers = try PostgreSQLConnection(onStandby).execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'worldcup'"
        ).scalar
        #expect(readers != "0", "the screen reads the standby")

        // A win by another program, through the same URI: counted on the primary, shown.
        let won = try SharedScoreboardEndToEndTests.runWorldCup(["win", "Brazil", "--db", both])
        #expect(won.status == 0 && won.stdout == "1\n", "\(won.stderr)")
        #expect(terminal.wait { _ in terminal.wins(of: "Brazil") == 1 }, "\(terminal.lines)")
        // A key's win: counted once on the primary, shown on the screen reading the standby.
        #expect(try terminal.moveCursor(to: "Ghana"))
        try terminal.press("Enter")
        #expect(terminal.wait { _ in terminal.wins(of: "Ghana") == 1 }, "\(terminal.statusLine)")
        let onPrimaryServer = "host=\(primary.socketFolder) port=\(primary.port) dbname=league user=postgres"
        let counted = try PostgreSQLConnection(onPrimaryServer).execute(
            "SELECT team_name, wins FROM team WHERE team_name IN ('Brazil', 'Ghana') ORDER BY team_name"
        ).rows.map { "\($0[0] ?? "") \($0[1] ?? "")" }
        #expect(counted == ["Brazil 1", "Ghana 1"])
        try terminal.press("q")
    }
}
