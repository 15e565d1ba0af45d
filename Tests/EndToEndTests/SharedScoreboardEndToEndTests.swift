import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

/// The scoreboard on a shared PostgreSQL store, in real terminals: it follows other programs'
/// wins, keeps its standings while the server is away, and counts every win exactly once.
@Suite(.serialized) struct SharedScoreboardEndToEndTests {
    static func scoreboard(
        _ database: SharedDatabase, role: String = "postgres", in directory: TemporaryDirectory, extra: String = ""
    ) -> String {
        "XDG_CACHE_HOME='\(directory.path)/cache' '\(WorldCupProcess.binary)' --db '\(database.uri(role: role))' "
            + "--seed '\(WorldCupProcess.seedPath)' \(extra)"
    }

    static func win(_ team: String, count: Int = 1, _ database: SharedDatabase) throws {
        let result = try runWorldCup(["win", team, "--count", String(count), "--db", database.uri()])
        try #require(result.status == 0, "\(result.stderr)")
    }

    /// Runs the built binary with the seed.
    static func runWorldCup(_ arguments: [String]) throws -> ProgramRun {
        try ProgramRun(WorldCupProcess.binary, arguments + ["--seed", WorldCupProcess.seedPath])
    }

    /// Every team's wins shown on screen equal the server's.
    static func screenMatchesServer(_ terminal: Tmux, _ database: SharedDatabase) throws -> Bool {
        let server = try database.wins()
        return terminal.wait(timeout: 10) { _ in
            server.allSatisfy { name, wins in terminal.wins(of: name).map { $0 == wins } ?? true }
        }
    }

    @Test func followsOtherProgramsAndKeepsItsStandingsWhileTheServerIsAway() throws {
        let cluster = try TemporaryCluster()
        let database = try SharedDatabase(in: cluster)
        let directory = TemporaryDirectory()
        let terminal = try Tmux(command: Self.scoreboard(database, in: directory))
        #expect(terminal.waitFor("World Cup — 32 teams"))
        try Self.win("Algeria", count: 3, database)
        #expect(terminal.wait { _ in terminal.wins(of: "Algeria") == 3 })

        try cluster.stopServer()
        #expect(terminal.waitFor("Reconnecting to postgres@"), "\(terminal.statusLine)")
        #expect(terminal.wins(of: "Algeria") == 3, "the last standings stay")
        try terminal.press("Enter")
        #expect(terminal.waitFor("Not counted: reconnecting to postgres@"))

        try cluster.startServer()
        try Self.win("Ghana", count: 2, database)
        #expect(terminal.waitFor("Connected again", timeout: 15), "\(terminal.statusLine)")
        #expect(terminal.wait { _ in terminal.wins(of: "Ghana") == 2 })
        #expect(try database.wins()["Algeria"] == 3, "the refused win was not counted")
        #expect(try Self.screenMatchesServer(terminal, database))

        // A key's win shows in the frame after the key, as on SQLite.
        #expect(try terminal.moveCursor(to: "Ghana"))
        try terminal.press("Enter")
        #expect(terminal.wait { _ in terminal.wins(of: "Ghana") == 3 })
        #expect(try database.wins()["Ghana"] == 3)
    }

    /// A win whose commit stays in doubt is sent again by an idle scoreboard as soon as the
    /// commits go through again, without a key or another writer to wake it.
    @Test func anIdleScoreboardResolvesAWinInDoubtByItself() throws {
        let database = try SharedDatabase()
        let directory = TemporaryDirectory()
        let log = directory.path + "/commits.log"
        let terminal = try Tmux(command: Self.scoreboard(database, in: directory, extra: "--log '\(log)'"))
        #expect(terminal.waitFor("World Cup — 32 teams"))
        try database.cutCommitsOfScores(times: nil)
        try terminal.press("Enter")  // the cursor starts on Algeria
        #expect(terminal.waitFor("Win for Algeria in doubt", timeout: 15), "\(terminal.statusLine)")
        try database.stopCuttingCommits()
        #expect(
            terminal.waitFor("in doubt while the server was away, is counted once", timeout: 5),
            "\(terminal.statusLine)")
        #expect(try database.wins()["Algeria"] == 1)
        let logged = AuditLogFile(path: log).entries
        #expect(
            logged.map(\.action) == ["win"] && logged.map(\.name) == ["Algeria"],
            "the win is logged once, when it counted")
        #expect(logged.first.map { UUID(uuidString: $0.key) != nil && $0.teamID != nil } == true, "with its score key")
    }

    @Test func aViewerBesideAScorerSeesTheScoreAndIsToldItIsReadOnly() throws {
        let database = try SharedDatabase()
        #expect(try Self.runWorldCup(["list", "--db", database.uri()]).status == 0)
        try database.createRoles()
        let directory = TemporaryDirectory()
        let viewer = try Tmux(command: Self.scoreboard(database, role: "viewer", in: directory))
        let scorer = try Tmux(command: Self.scoreboard(database, role: "scorer", in: directory))
        #expect(viewer.waitFor("World Cup — 32 teams") && scorer.waitFor("World Cup — 32 teams"))
        try scorer.press("Enter")  // the cursor starts on the first team, Algeria
        #expect(viewer.wait { _ in viewer.wins(of: "Algeria") == 1 })
        try viewer.press("Enter")
        #expect(viewer.waitFor("Read-only: the PostgreSQL role \"viewer\" may not add wins"), "\(viewer.statusLine)")
        try scorer.press("u")
        #expect(viewer.wait { _ in viewer.wins(of: "Algeria") == 0 })
        #expect(try database.wins()["Algeria"] == 0)
        #expect(!viewer.commandExited)
    }

    /// Issue 22, bug 3: a viewer's "Read-only: …" and a scorer's "Took back a win…" give way to
    /// "Reconnecting to …" once the server is gone, without a key; and at 80 columns the
    /// viewer's refusal keeps its advice.
    @Test func theConnectionsStateReplacesAnOlderMessageWithoutAKey() throws {
        let cluster = try TemporaryCluster()
        let database = try SharedDatabase(in: cluster)
        #expect(try Self.runWorldCup(["list", "--db", database.uri()]).status == 0)
        try database.createRoles()
        let directory = TemporaryDirectory()
        let viewer = try Tmux(width: 80, height: 24, command: Self.scoreboard(database, role: "viewer", in: directory))
        let scorer = try Tmux(width: 80, height: 24, command: Self.scoreboard(database, role: "scorer", in: directory))
        #expect(viewer.waitFor("World Cup — 32 teams") && scorer.waitFor("World Cup — 32 teams"))
        try viewer.press("Enter")
        #expect(viewer.waitFor("Read-only: the PostgreSQL role \"viewer\" may not add wins"), "\(viewer.lines)")
        #expect(viewer.waitFor("for the grant"), "the advice is on screen: \(viewer.lines)")
        try scorer.press("Enter")
        #expect(scorer.wait { _ in scorer.wins(of: "Algeria") == 1 })
        try scorer.press("u")
        #expect(scorer.waitFor("Took back a win from Algeria."), "\(scorer.statusLine)")

        try cluster.stopServer()
        for terminal in [viewer, scorer] {
            #expect(terminal.waitFor("Reconnecting to ", timeout: 15), "\(terminal.lines)")
            #expect(!terminal.lines.contains { $0.contains("Read-only") || $0.contains("Took back") })
        }
        try cluster.startServer()
        for terminal in [viewer, scorer] {
            #expect(terminal.waitFor("Connected again", timeout: 15), "\(terminal.statusLine)")
        }
    }

    /// Wins pressed in bursts while the server restarts, crashes (SIGKILL) and terminates the
    /// scoreboard's connections: the server's total is exactly the wins the scoreboard said were
    /// done (its commit log), never one more, and the screen ends equal to the server.
    @Test func everyWinTheScoreboardReportedIsCountedOnceThroughServerFaults() throws {
        let cluster = try TemporaryCluster()
        let database = try SharedDatabase(in: cluster)
        let directory = TemporaryDirectory()
        let log = directory.path + "/commits.log"
        let terminal = try Tmux(command: Self.scoreboard(database, in: directory, extra: "--log '\(log)'"))
        #expect(terminal.waitFor("World Cup — 32 teams"))
        let faults: [(String, () throws -> Void)] = [
            ("restart -m fast", { try cluster.restart() }),
            ("SIGKILL on the postmaster", { try cluster.killAndStart() }),
            (
                "pg_terminate_backend",
                {
                    try database.connect().execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'worldcup'")
                }
            ),
        ]
        for (name, fault) in faults {
            let presses = DispatchQueue(label: "presses")
            let done = DispatchSemaphore(value: 0)
            presses.async {
                for _ in 0..<30 {
                    try? terminal.press("Enter")
                    usleep(30_000)
                }
                done.signal()
            }
            usleep(300_000)
            try fault()
            done.wait()
            // Neither "Reconnecting…" nor a refusal ("Not counted: reconnecting…") nor a win still
            // "in doubt:" stays once the server is back.
            #expect(
                terminal.wait(timeout: 20) { lines in
                    !lines.contains { $0.contains("econnecting") || $0.contains("in doubt:") }
                },
                "\(name): \(terminal.statusLine)")
        }
        let reported = AuditLogFile(path: log).wins.count
        let counted = try database.wins()["Algeria"] ?? -1
        print("wins pressed: 90, reported done: \(reported), counted by the server: \(counted)")
        #expect(reported > 0)
        #expect(counted == reported)
        #expect(try Self.screenMatchesServer(terminal, database))
    }
}
