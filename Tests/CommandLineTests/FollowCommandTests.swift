import Foundation
import TestSupport
import Testing

/// `worldcup follow` as a person and a script use it: a real process, told of wins and teams
/// that other processes commit, on both stores.
@Suite(.serialized) struct FollowCommandTests {
    /// Each command's change as one line, in order, with sports-table ranks: teams with equal
    /// wins share a rank and the next one skips (Germany and Belgium both 2nd, Spain 4th).
    @Test(arguments: StoreKind.allCases)
    func eachChangeIsOneLineWithItsMovement(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        try store.run(["list"])
        let follow = try FollowProcess(["--db", store.db], folder: store.folder)
        let steps: [([String], String)] = [
            (["win", "Germany", "--count", "2"], "Germany +2 → 2 wins, still 1st in Europe"),
            (["win", "Belgium"], "Belgium +1 → 1 win, still 2nd in Europe"),
            (["win", "France", "--count", "3"], "France +3 → 3 wins, ▲2 to 1st in Europe"),
            (["win", "belgium"], "Belgium +1 → 2 wins, ▲1 to 2nd in Europe"),
            (["win", "Spain"], "Spain +1 → 1 win, still 4th in Europe"),
            (["add", "--name", "Wenderland", "--zone", "Internets"], "Wenderland NEW → 0 wins, 1st in Internets"),
            (["win", "Wenderland"], "Wenderland +1 → 1 win, still 1st in Internets"),
            (
                ["add", "--name", "Red\u{1B}[31mRum", "--zone", "internets"],
                "Red\u{FFFD}[31mRum NEW → 0 wins, 2nd in Internets"
            ),
        ]
        for (arguments, line) in steps {
            let result = try store.run(arguments)
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(follow.nextLine() == line, "\(arguments)")
        }
        #expect(follow.linesUntilQuiet().isEmpty, "one line per change")
        #expect(follow.process.isRunning)
    }

    /// `--json`: one object a line, every field there, as Python's `json` reads it too.
    @Test(arguments: StoreKind.allCases)
    func jsonGivesOneObjectALine(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        try store.run(["win", "Ghana"])
        let follow = try FollowProcess(["--db", store.db, "--json"], folder: store.folder)
        try #require(try store.run(["win", "Nigeria", "--count", "2"]).status == 0)
        try #require(try store.run(["add", "--name", "Wenderland", "--zone", "Africa"]).status == 0)
        let lines = [follow.nextLine(), follow.nextLine()].compactMap { $0 }
        try #require(lines.count == 2, "\(lines) \(follow.stderr)")
        let objects = try lines.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }

        let nigeria = objects[0]
        #expect(nigeria["change"] as? String == "changed")
        #expect(nigeria["teamName"] as? String == "Nigeria" && nigeria["zone"] as? String == "Africa")
        #expect(nigeria["wins"] as? Int == 2 && nigeria["oldWins"] as? Int == 0 && nigeria["newWins"] as? Int == 2)
        #expect(nigeria["oldRank"] as? Int == 2 && nigeria["newRank"] as? Int == 1, "Ghana's 1 win was ahead")
        #expect((nigeria["id"] as? Int ?? 0) > 0)
        let position = try #require(nigeria["position"] as? String, "the feed position: \(nigeria)")

        let wenderland = objects[1]
        #expect(wenderland["change"] as? String == "new")
        #expect(wenderland["oldWins"] is NSNull && wenderland["oldRank"] is NSNull)
        #expect(wenderland["newWins"] as? Int == 0 && wenderland["newRank"] as? Int == 3)
        #expect(wenderland["position"] as? String != position, "the feed moved on")

        let python = try WorldCupProcess.runProgram(
            "/usr/bin/python3",
            ["-c", "import json, sys\nfor line in sys.argv[1:]: print(json.loads(line)['teamName'])"] + lines)
        #expect(python.stdout == "Nigeria\nWenderland\n", "\(python.stderr)")
    }

    /// A burst of wins from another process, faster than it looks: commits that reach it in one
    /// look come as one line, their sum, so no win is lost, and each team's last line says what
    /// the store holds.
    @Test(arguments: StoreKind.allCases)
    func aBurstOfWinsLosesNone(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        try store.run(["list"])
        let follow = try FollowProcess(["--db", store.db, "--json"], folder: store.folder)
        let teams = ["Ghana", "Japan", "Brazil", "Italy", "Chile"]
        var made: [String: Int] = [:]
        for index in 0..<30 {
            let team = teams[(index * 7) % teams.count]
            try #require(try store.run(["win", team]).status == 0)
            made[team, default: 0] += 1
        }
        var told: [String: Int] = [:]
        var last: [String: Int] = [:]
        while told != made, let line = follow.nextLine() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let team = try #require(object["teamName"] as? String)
            let wins = try #require(object["newWins"] as? Int), old = try #require(object["oldWins"] as? Int)
            #expect(old == last[team] ?? 0, "each line goes on from the one before: \(line)")
            told[team, default: 0] += wins - old
            last[team] = wins
        }
        #expect(told == made)
        #expect(follow.linesUntilQuiet().isEmpty)
    }

    /// Ctrl-C and SIGTERM end it with status 0, as they end `tail -f`.
    @Test(arguments: StoreKind.allCases, [SIGINT, SIGTERM])
    func aStopSignalEndsItWithStatusZero(_ kind: StoreKind, signal: Int32) throws {
        let store = try kind.makeStore()
        let follow = try FollowProcess(["--db", store.db], folder: store.folder)
        kill(follow.process.processIdentifier, signal)
        #expect(follow.exitStatus() == 0)
    }

    /// When its reader goes away (`head` has its lines), it ends at once with status 0, without
    /// waiting for a change to write.
    @Test(arguments: StoreKind.allCases)
    func aClosedPipeEndsItWithStatusZero(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let follow = try FollowProcess(["--db", store.db], folder: store.folder)
        follow.closeReader()
        #expect(follow.exitStatus() == 0, "\(follow.stderr)")
        #expect(follow.stderr.components(separatedBy: "\n").count == 2, "only its note: \(follow.stderr)")
    }

    /// `worldcup follow | head -3`, in a shell: the pipeline ends after three changes, and
    /// follow's own status (pipefail) is 0.
    @Test(arguments: StoreKind.allCases)
    func headEndsThePipelineAfterItsLines(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        try store.run(["list"])
        let output = store.folder.path + "/head.out"
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        shell.arguments = [
            "-c", "set -o pipefail; \"$0\" follow --db \"$1\" 2>\"$2.err\" | head -3 >\"$2\"", WorldCupProcess.binary,
            store.db, output,
        ]
        shell.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": store.folder.path]
        try shell.run()
        let deadline = Date().addingTimeInterval(60)
        while !((try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? "").contains("Following") {
            try #require(Date() < deadline && shell.isRunning, "follow did not start")
            usleep(10_000)
        }
        for team in ["Ghana", "Japan", "Brazil", "Italy"] where shell.isRunning {
            try store.run(["win", team])
            usleep(300_000)
        }
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.map { $0.split(separator: " ").first ?? "" } == ["Ghana", "Japan", "Brazil"], "\(lines)")
    }

    /// A server that goes away and comes back: follow says so on stderr both times, and prints
    /// the win made while it was away once it is back, with nothing lost.
    @Test func aLostServerIsSaidAndItsChangesPrintedWhenItIsBack() throws {
        let cluster = try TemporaryCluster()
        let database = try SharedDatabase(in: cluster)
        let folder = TemporaryDirectory()
        let follow = try FollowProcess(["--db", database.uri()], folder: folder)
        try cluster.stopServer()
        let said = { (text: String) in
            let deadline = Date().addingTimeInterval(20)
            while !follow.stderr.contains(text), Date() < deadline { usleep(50_000) }
            return follow.stderr.contains(text)
        }
        #expect(said("Lost the connection to "), "\(follow.stderr)")
        try cluster.startServer()
        let won = try WorldCupProcess.run(["win", "Brazil", "--db", database.uri()])
        #expect(won.status == 0, "\(won.stderr)")
        #expect(follow.nextLine(timeout: 30) == "Brazil +1 → 1 win, still 1st in South America")
        #expect(said("Connected again to "), "\(follow.stderr)")
        #expect(follow.process.isRunning)
    }
}
