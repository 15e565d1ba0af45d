import Foundation
import GRDB
import TestSupport
import Testing

/// No win is ever lost: under concurrent writers, and when the scoreboard is killed mid-burst.
@Suite(.serialized) struct ReliabilityTests {
    func totals(_ store: String) throws -> (teams: Int, wins: Int, integrity: String) {
        let queue = try DatabaseQueue(path: store)
        defer { try? queue.close() }
        return try queue.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM team")!,
                try Int.fetchOne(db, sql: "SELECT coalesce(sum(wins), 0) FROM team")!,
                try String.fetchOne(db, sql: "PRAGMA integrity_check")!
            )
        }
    }

    @Test func fourProcessesTimes250WinsBesideARunningScoreboard() throws {
        let directory = TemporaryDirectory()
        let log = directory.path + "/scores.log"
        let scoreboard = try Tmux(command: "\(directory.scoreboard) --log '\(log)'")
        #expect(scoreboard.waitFor("World Cup — 32 teams in 5 zones"))

        let processes = 4, winsEach = 250
        let failures = Shared<[String]>([])
        let writers = DispatchGroup()
        for worker in 0..<processes {
            DispatchQueue.global().async(group: writers) {
                for round in 0..<winsEach {
                    let team = ["Brazil", "Germany", "Japan", "Ghana", "Mexico"][(worker + round) % 5]
                    let result = try? WorldCupProcess.run(["win", team, "--db", directory.store])
                    if result?.status != 0 { failures.withLock { $0.append(result?.stderr ?? "did not run") } }
                }
            }
        }
        // The person at the scoreboard keeps pressing Enter meanwhile.
        var pressed = 0
        while writers.wait(timeout: .now() + 0.05) == .timedOut {
            try scoreboard.press("Enter")
            pressed += 1
        }
        #expect(failures.withLock { $0 } == [])
        // Every press that reached the scoreboard is committed and logged before the next frame.
        try scoreboard.press("q")
        #expect(scoreboard.waitUntil(timeout: 10) { scoreboard.commandExited })
        let committedByScoreboard = AuditLogFile(path: log).wins.count
        #expect(pressed > 0 && committedByScoreboard == pressed, "every Enter was one committed win")
        let after = try totals(directory.store)
        #expect(after.integrity == "ok")
        #expect(after.teams == 32)
        #expect(after.wins == processes * winsEach + committedByScoreboard)
        print("reliability: \(processes) processes × \(winsEach) wins + \(pressed) scoreboard wins = \(after.wins)")
    }

    /// The scoreboard is killed (SIGKILL) at a random moment of a burst of wins, twenty times:
    /// every win its log says was committed is in the store, and every round committed some.
    @Test func killedMidBurstTwentyTimesLosesNoCommittedWin() throws {
        let directory = TemporaryDirectory()
        let log = directory.path + "/scores.log"
        let seed = UInt64.random(in: 0...UInt64.max)
        print("killedMidBurstTwentyTimesLosesNoCommittedWin seed \(seed)")
        var random = SplitMix64(seed: seed)
        var previousWins = 0
        for round in 1...20 {
            let terminal = try Tmux(command: "\(directory.scoreboard) --log '\(log)'")
            try #require(terminal.waitFor("World Cup — 32 teams"), "round \(round): the scoreboard started")
            let loggedBefore = AuditLogFile(path: log).wins.count
            for _ in 0..<Int.random(in: 5...25, using: &random) { try terminal.press("Enter") }
            // The burst has begun (its first win is committed), then it is cut at a random moment.
            #expect(
                terminal.waitUntil(timeout: 10) { AuditLogFile(path: log).wins.count > loggedBefore },
                "round \(round): no key reached the program")
            usleep(UInt32.random(in: 0...150_000, using: &random))
            _ = try Process.run(
                URL(fileURLWithPath: "/usr/bin/pkill"),
                arguments: ["-KILL", "-f", "^[^ ]*/worldcup --db \(directory.store)"]
            ).waitUntilExit()
            #expect(terminal.waitUntil(timeout: 10) { terminal.commandExited }, "round \(round): killed")

            let logged = AuditLogFile(path: log).wins.count
            let state = try totals(directory.store)
            #expect(state.integrity == "ok", "round \(round)")
            #expect(state.teams == 32, "round \(round): the seed was never imported again")
            // Each win is logged right after its commit, so at most one commit can be missing from the log.
            #expect(
                state.wins >= logged && state.wins <= logged + 1, "round \(round): \(state.wins) wins, \(logged) logged"
            )
            #expect(state.wins > previousWins, "round \(round): the round committed wins, and none disappeared")
            previousWins = state.wins
        }
        print("reliability: 20 SIGKILL rounds, \(previousWins) committed wins kept")
    }
}
