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
    /// A primary with the seed's 32 teams in database `league`, and its standby once it has them.
    struct Servers {
        let primary: TemporaryCluster
        let standby: TemporaryCluster
        var onPrimary: String { "host=\(primary.socketFolder) port=\(primary.port) dbname=league user=postgres" }
        var onStandby: String { "host=\(standby.socketFolder) port=\(standby.port) dbname=league user=postgres" }
        /// One URI naming both, as a league gives its screens.
        var both: String {
            "postgresql://postgres@/league?host=\(primary.socketFolder),\(standby.socketFolder)"
                + "&port=\(primary.port),\(standby.port)"
        }

        func stop() {
            standby.stop()
            primary.stop()
        }
    }

    /// The status line's message, which may wrap over the last few rows.
    static func status(_ terminal: Tmux) -> String {
        terminal.lines.suffix(4).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    enum ClusterError: Error { case standbyNeverCaughtUp }

    static func servers(primaryPort: Int, standbyPort: Int) throws -> Servers {
        let primary = try TemporaryCluster(port: primaryPort)
        do {
            try PostgreSQLConnection(primary.connectionString).execute("CREATE DATABASE league")
            let onPrimary = "postgresql://postgres@/league?host=\(primary.socketFolder)&port=\(primary.port)"
            let seeded = try SharedScoreboardEndToEndTests.runWorldCup(["list", "--db", onPrimary])
            try #require(seeded.status == 0, "\(seeded.stderr)")
            let servers = Servers(primary: primary, standby: try primary.makeStandby(port: standbyPort))
            let replicated = ContinuousClock.now + .seconds(30)
            while (try? PostgreSQLConnection(servers.onStandby).execute("SELECT count(*) FROM team").scalar) != "32" {
                guard ContinuousClock.now < replicated else {
                    servers.standby.stop()
                    throw ClusterError.standbyNeverCaughtUp
                }
                usleep(50_000)
            }
            return servers
        } catch {
            primary.stop()
            throw error
        }
    }

    /// The scoreboard on `uri`, its cache in a folder of its own.
    static func screen(_ uri: String, _ directory: TemporaryDirectory) throws -> Tmux {
        try Tmux(
            command: "XDG_CACHE_HOME='\(directory.path)/cache' '\(WorldCupProcess.binary)' --db '\(uri)' "
                + "--seed '\(WorldCupProcess.seedPath)'")
    }

    @Test func aScreenOnTheStandbyShowsWinsScoredThroughThePrimary() throws {
        let servers = try Self.servers(primaryPort: 5443, standbyPort: 5444)
        defer { servers.stop() }
        let onStandby = servers.onStandby, both = servers.both
        let directory = TemporaryDirectory()
        let terminal = try Self.screen(both, directory)
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
        let counted = try PostgreSQLConnection(servers.onPrimary).execute(
            "SELECT team_name, wins FROM team WHERE team_name IN ('Brazil', 'Ghana') ORDER BY team_name"
        ).rows.map { "\($0[0] ?? "") \($0[1] ?? "")" }
        #expect(counted == ["Brazil 1", "Ghana 1"])
        try terminal.press("q")
    }

    /// `serve` given the same URI: its page follows the standby, and a tap on it is counted
    /// once, on the primary.
    @Test func serveFollowsTheStandbyAndScoresOnThePrimary() throws {
        let servers = try Self.servers(primaryPort: 5449, standbyPort: 5450)
        defer { servers.stop() }
        let serve = try ServeProcess(db: servers.both, home: TemporaryDirectory().path + "/home")
        defer { _ = serve.stop() }
        let readers = try PostgreSQLConnection(servers.onStandby).execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'worldcup'"
        ).scalar
        #expect(readers != "0", "serve follows the standby")

        let won = try SharedScoreboardEndToEndTests.runWorldCup(["win", "Brazil", "--db", servers.both])
        #expect(won.status == 0, "\(won.stderr)")
        let ghana = try #require(
            try PostgreSQLConnection(servers.onPrimary).execute("SELECT id FROM team WHERE team_name = 'Ghana'").scalar)
        let token = try #require(serve.token)
        let tap = try HTTPClient.request(
            "POST", serve.base + "/teams/\(ghana)/wins",
            headers: ["Authorization": "Bearer \(token)", "Idempotency-Key": UUID().uuidString])
        #expect(tap.status == 200, "\(tap.text)")
        let shown = ContinuousClock.now + .seconds(10)
        while (try? serve.wins()).map({ $0["Brazil"] != 1 || $0["Ghana"] != 1 }) ?? true, ContinuousClock.now < shown {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(try serve.wins()["Brazil"] == 1 && serve.wins()["Ghana"] == 1)
        let counted = try PostgreSQLConnection(servers.onPrimary).execute(
            "SELECT team_name, wins FROM team WHERE team_name IN ('Brazil', 'Ghana') ORDER BY team_name"
        ).rows.map { "\($0[0] ?? "") \($0[1] ?? "")" }
        #expect(counted == ["Brazil 1", "Ghana 1"])
    }

    /// Replay paused on the standby (`pg_wal_replay_pause()`), as when it falls behind: the
    /// screen says how far behind it is once that passes a second, shows the win when replay
    /// goes on, and says nothing more of it then.
    @Test func aScreenOnAStandbySaysWhenItIsBehind() throws {
        let servers = try Self.servers(primaryPort: 5445, standbyPort: 5446)
        defer { servers.stop() }
        let directory = TemporaryDirectory()
        let terminal = try Self.screen(servers.both, directory)
        #expect(terminal.waitFor("World Cup — 32 teams"), "\(terminal.lines)")
        #expect(!terminal.statusLine.contains("behind"), "\(terminal.statusLine)")

        try PostgreSQLConnection(servers.onStandby).execute("SELECT pg_wal_replay_pause()")
        let won = try SharedScoreboardEndToEndTests.runWorldCup(["win", "Brazil", "--db", servers.both])
        #expect(won.status == 0 && won.stdout == "1\n", "\(won.stderr)")
        #expect(
            terminal.wait { _ in terminal.statusLine.contains("Reading a standby") },
            "the lag is said: \(terminal.statusLine)")
        #expect(terminal.statusLine.contains("s behind the primary"), "\(terminal.statusLine)")
        #expect(terminal.wins(of: "Brazil") == 0, "the standby has not replayed the win")

        try PostgreSQLConnection(servers.onStandby).execute("SELECT pg_wal_replay_resume()")
        #expect(terminal.wait { _ in terminal.wins(of: "Brazil") == 1 }, "\(terminal.lines)")
        #expect(terminal.wait { _ in !terminal.statusLine.contains("behind") }, "\(terminal.statusLine)")
        try terminal.press("q")
    }

    /// Failover with synchronous replication (`synchronous_commit=remote_apply`): a win whose
    /// commit reply the primary's crash loses is "in doubt", a win pressed while no server takes
    /// writes is refused, and once the standby is promoted (`pg_ctl promote`) the screen goes on
    /// by itself: the win in doubt is checked with its key and counted once, new wins count, and
    /// every win the screen's log says was counted is on the new primary, and no other.
    @Test func afterAFailoverEveryWinToldCountedIsOnTheNewPrimary() throws {
        let servers = try Self.servers(primaryPort: 5447, standbyPort: 5448)
        defer { servers.stop() }
        try servers.primary.execute("ALTER SYSTEM SET synchronous_standby_names = '*'")
        try servers.primary.execute("ALTER SYSTEM SET synchronous_commit = 'remote_apply'")
        try servers.primary.execute("SELECT pg_reload_conf()")
        let synchronous = ContinuousClock.now + .seconds(30)
        while (try? PostgreSQLConnection(servers.onPrimary).execute(
            "SELECT sync_state FROM pg_stat_replication"
        ).scalar) != "sync" {
            try #require(ContinuousClock.now < synchronous, "the standby never became synchronous")
            usleep(50_000)
        }
        let directory = TemporaryDirectory()
        let log = AuditLogFile(path: directory.path + "/audit.log")
        let terminal = try Tmux(
            command: "XDG_CACHE_HOME='\(directory.path)/cache' '\(WorldCupProcess.binary)' --db '\(servers.both)' "
                + "--seed '\(WorldCupProcess.seedPath)' --log '\(log.path)'")
        #expect(terminal.waitFor("World Cup — 32 teams"), "\(terminal.lines)")
        #expect(try terminal.moveCursor(to: "Brazil"))
        for _ in 1...3 { try terminal.press("Enter") }
        #expect(terminal.waitUntil(timeout: 10) { log.wins.count == 3 }, "\(log.wins)")

        // A commit waits for the standby, whose replay is paused: the primary crashes meanwhile.
        try PostgreSQLConnection(servers.onStandby).execute("SELECT pg_wal_replay_pause()")
        try terminal.press("Enter")
        usleep(500_000)
        try servers.primary.crash()
        #expect(
            terminal.wait(timeout: 15) { _ in Self.status(terminal).contains("in doubt") }, "\(Self.status(terminal))")
        // Sent again while no server takes writes, it stays in doubt.
        #expect(
            terminal.wait(timeout: 15) { _ in Self.status(terminal).contains("still in doubt") },
            "\(Self.status(terminal))")
        // A new win while no server takes writes is refused, and says so.
        try terminal.press("Enter")
        #expect(
            terminal.wait { _ in Self.status(terminal).contains("Nothing was changed") }, "\(Self.status(terminal))")
        let toldBeforePromotion = log.wins.count
        #expect(toldBeforePromotion == 3, "\(log.wins)")

        try servers.standby.promote()
        #expect(
            terminal.wait(timeout: 15) { _ in Self.status(terminal).contains("counted once") },
            "the win in doubt is checked: \(Self.status(terminal))")
        for _ in 1...2 { try terminal.press("Enter") }
        #expect(
            terminal.waitUntil(timeout: 10) { log.wins.count == toldBeforePromotion + 3 },
            "the win in doubt and two new ones are counted: \(log.wins)")
        let onNewPrimary = try PostgreSQLConnection(servers.onStandby).execute(
            "SELECT wins FROM team WHERE team_name = 'Brazil'"
        ).scalar
        #expect(onNewPrimary == "\(log.wins.count)", "every win told counted, and no other")
        #expect(terminal.wait { _ in terminal.wins(of: "Brazil") == log.wins.count }, "\(terminal.lines)")
        try terminal.press("q")
    }
}
