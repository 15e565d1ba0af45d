import TestSupport
import Foundation
import GRDB
import Testing

/// No win is ever lost: under concurrent writers, and when the scoreboard is killed mid-burst.
@Suite(.serialized) struct ReliabilityTests {
    func totals(_ store: String) throws -> (teams: Int, wins: Int, integrity: String) {
        let queue = try DatabaseQueue(path: store)
        defer { try? queue.close() }
        return try queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM team")!,
             try Int.fetchOne(db, sql: "SELECT coalesce(sum(wins), 0) FROM team")!,
             try String.fetchOne(db, sql: "PRAGMA integrity_check")!)
        }
    }

    @Test func fourProcessesTimes250WinsBesideARunningScoreboard() throws {
        let directory = TemporaryDirectory()
        let log = directory.path + "/commits.log"
        let scoreboard = try Tmux(command: "\(directory.scoreboard) --test-commit-log '\(log)'")
        #expect(scoreboard.waitFor("World Cup — 32 teams in 5 zones"))

        let processes = 4, winsEach = 250
        let failures = Mutex<[String]>([])
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
        var presses = 0
        while writers.wait(timeout: .now() + 0.05) == .timedOut {
            try scoreboard.press("Enter")
            presses += 1
        }
        #expect(failures.withLock { $0 } == [])
        // Every press that reached the scoreboard is committed and logged before the next frame.
        try scoreboard.press("q")
        #expect(scoreboard.waitUntil(timeout: 10) { scoreboard.commandExited })
        let committedByScoreboard = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n").count ?? 0
        #expect(committedByScoreboard == presses, "every Enter was one committed win")
        let after = try totals(directory.store)
        #expect(after.integrity == "ok")
        #expect(after.teams == 32)
        #expect(after.wins == processes * winsEach + committedByScoreboard)
        print("reliability: \(processes) processes × \(winsEach) wins + \(presses) scoreboard wins = \(after.wins)")
    }

    @Test func killedMidBurstTwentyTimesLosesNoCommittedWin() throws {
        let directory = TemporaryDirectory()
        let log = directory.path + "/commits.log"
        var random = SystemRandomNumberGenerator()
        var previousWins = 0
        for round in 1...20 {
            let terminal = try Tmux(command: "\(directory.scoreboard) --test-commit-log '\(log)'")
            try #require(terminal.waitFor("World Cup — 32 teams"), "round \(round): the scoreboard started")
            for _ in 0..<Int.random(in: 5...25, using: &random) { try terminal.press("Enter") }
            usleep(UInt32.random(in: 0...150_000, using: &random))
            _ = try Process.run(URL(fileURLWithPath: "/usr/bin/pkill"),
                                arguments: ["-KILL", "-f", "^[^ ]*/worldcup --db \(directory.store)"]).waitUntilExit()
            #expect(terminal.waitUntil(timeout: 10) { terminal.commandExited }, "round \(round): killed")

            let logged = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n").count ?? 0
            let state = try totals(directory.store)
            #expect(state.integrity == "ok", "round \(round)")
            #expect(state.teams == 32, "round \(round): the seed was never imported again")
            // Each win is logged right after its commit, so at most one commit can be missing from the log.
            #expect(state.wins >= logged && state.wins <= logged + 1, "round \(round): \(state.wins) wins, \(logged) logged")
            #expect(state.wins >= previousWins, "round \(round): no committed win disappeared")
            previousWins = state.wins
        }
        print("reliability: 20 SIGKILL rounds, \(previousWins) committed wins kept")
    }
}

/// Runs the built `worldcup` binary (stdin from /dev/null) and collects its output.
enum WorldCupProcess {
    struct Result {
        var status: Int32
        var stderr: String
    }

    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tmux.binary)
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stderr: String(decoding: data, as: UTF8.self))
    }
}
