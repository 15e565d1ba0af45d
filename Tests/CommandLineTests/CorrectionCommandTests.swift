import Foundation
import TestSupport
import Testing

/// The organiser's corrections — `set-wins`, `rename`, `remove` — run as a user runs them, on
/// both stores: what each prints, what the store holds after, what the audit log and a
/// follower say, and every refusal.
@Suite(.serialized) struct CorrectionCommandTests {
    static let zone = "North, Central America & Caribbean"

    /// Each team's wins by name, as `list --json` prints them.
    static func wins(_ store: TestStore) throws -> [String: Int] {
        struct Section: Decodable { var teams: [Entry] }
        struct Entry: Decodable { var teamName: String; var wins: Int }
        let listed = try store.run(["list", "--json"])
        let sections = try JSONDecoder().decode([Section].self, from: Data(listed.stdout.utf8))
        return Dictionary(uniqueKeysWithValues: sections.flatMap(\.teams).map { ($0.teamName, $0.wins) })
    }

    @Test(arguments: StoreKind.allCases)
    func eachCorrectionIsDoneLoggedAndFollowed(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        try store.run(["win", "Mexico"])
        let follow = try FollowProcess(["--db", store.db], folder: store.folder)
        let log = store.folder.path + "/audit.log"
        let steps: [(arguments: [String], says: String, followed: String)] = [
            (
                ["set-wins", "Costa", "Rica", "3"], "Set Costa Rica's wins from 0 to 3",
                "Costa Rica +3 → 3 wins, ▲1 to 1st in \(Self.zone)"
            ),
            (
                ["set-wins", "costa rica", "0"], "Set Costa Rica's wins from 3 to 0",
                "Costa Rica -3 → 0 wins, ▼1 to 2nd in \(Self.zone)"
            ),
            (
                ["rename", "costa rica", "Costa Rica FC"], "Renamed Costa Rica to Costa Rica FC",
                "Costa Rica renamed Costa Rica FC, 0 wins, still 2nd in \(Self.zone)"
            ),
            (
                ["rename", "costa rica fc", "COSTA RICA FC"], "Renamed Costa Rica FC to COSTA RICA FC",
                "Costa Rica FC renamed COSTA RICA FC, 0 wins, still 2nd in \(Self.zone)"
            ),
            (
                ["remove", "Costa", "Rica", "FC", "--yes"], "Removed COSTA RICA FC (\(Self.zone), 0 wins)",
                "COSTA RICA FC removed from \(Self.zone) (had 0 wins, 2nd)"
            ),
        ]
        for step in steps {
            let result = try store.run(step.arguments + ["--log", log])
            #expect(result.status == 0, "\(step.arguments): \(result.stderr)")
            #expect(result.stdout == step.says + "\n", "\(step.arguments)")
            #expect(follow.nextLine() == step.followed, "\(step.arguments)")
        }
        let wins = try Self.wins(store)
        #expect(wins.count == 31 && wins["Mexico"] == 1 && wins.keys.allSatisfy { !$0.contains("Costa") }, "\(wins)")

        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map {
            Array($0.split(separator: "\t", omittingEmptySubsequences: false).dropFirst().map(String.init))
        }
        let id = lines.first?[2] ?? ""
        #expect(
            lines == [
                ["set-wins", "-", id, "Costa Rica", "0", "3"], ["set-wins", "-", id, "Costa Rica", "3", "0"],
                ["rename", "-", id, "Costa Rica", "Costa Rica", "Costa Rica FC"],
                ["rename", "-", id, "Costa Rica FC", "Costa Rica FC", "COSTA RICA FC"],
                ["remove", "-", id, "COSTA RICA FC"],
            ], "\(lines)")
        #expect(Int(id) ?? 0 > 0)
    }

    /// A zone's last team removed takes its section with it: `follow` still names the team.
    @Test(arguments: StoreKind.allCases)
    func removingAZonesLastTeamIsFollowed(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        try store.run(["add", "--name", "Wenderland", "--zone", "Internets"])
        try store.run(["set-wins", "Wenderland", "2"])
        let follow = try FollowProcess(["--db", store.db], folder: store.folder)
        let removed = try store.run(["remove", "wenderland", "--yes"])
        #expect(removed.stdout == "Removed Wenderland (Internets, 2 wins)\n", "\(removed.stderr)")
        #expect(follow.nextLine() == "Wenderland removed from Internets (had 2 wins, 1st)")
        #expect(!(try store.run(["list"]).stdout.contains("Internets")))
    }

    /// Every mistake says what happened and what to do, on stderr, with a non-zero status, and
    /// changes nothing.
    @Test(arguments: StoreKind.allCases)
    func mistakesAreRefusedAndChangeNothing(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        try store.run(["win", "Germany", "--count", "2"])
        let before = try Self.wins(store)
        let cases: [(arguments: [String], status: Int32, says: String)] = [
            (["set-wins", "Atlantis", "3"], 1, "no team named \"Atlantis\". Run 'worldcup list' to see every team."),
            (["rename", "Brasil", "Brazil FC"], 1, "no team named \"Brasil\". Did you mean \"Brazil\"?"),
            (["remove", "Atlantis", "--yes"], 1, "no team named \"Atlantis\""),
            (["set-wins", "Germany", "-1"], 64, "the wins must be a whole number of 0 or more, not -1."),
            (["set-wins", "Germany"], 64, "set-wins needs the team's name and then its wins"),
            (["set-wins", "Germany", "3", "--frobnicate"], 64, "unknown option '--frobnicate'"),
            (
                ["rename", "Brazil", "gERMANY"], 1,
                "a team named \"Germany\" already exists, so \"Brazil\" cannot be renamed \"gERMANY\" "
                    + "(names are case-insensitive). Choose another name."
            ),
            (["rename", "Brazil", "  "], 1, "the team name must not be empty."),
            (
                ["remove", "Germany"], 64,
                "remove asks before it removes a team, and its input is not a terminal to ask on. "
                    + "Pass --yes to remove \"Germany\" without asking."
            ),
            (["set-wins", "Germany", "3", "--log", "/dev/full"], 1, "could not take its line"),
        ]
        for (arguments, status, says) in cases {
            let result = try store.run(arguments)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix("worldcup: ") && result.stderr.contains(says), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
        // The log's failure comes after the commit, and says so: that one change was made.
        var expected = before
        expected["Germany"] = 3
        #expect(try Self.wins(store) == expected)
    }

    /// At a terminal, `remove` asks first: anything but yes keeps the team.
    @Test(arguments: StoreKind.allCases)
    func removeAsksAtATerminal(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        try store.run(["win", "Ghana", "--count", "2"])
        func remove(answering answer: String) throws -> WorldCupProcess.Result {
            let command = [WorldCupProcess.binary, "remove", "ghana", "--db", store.db].map { "'\($0)'" }
            return try WorldCupProcess.runProgram(
                "/bin/sh",
                ["-c", "printf '\(answer)\\n' | script -qec \"\(command.joined(separator: " "))\" /dev/null"])
        }
        let declined = try remove(answering: "n")
        #expect(declined.status == 1)
        #expect(declined.stdout.contains("Remove Ghana (Africa, 2 wins) from "), "\(declined.stdout)")
        #expect(declined.stdout.contains("? It cannot be undone. [y/N] "))
        #expect(declined.stdout.contains("\"Ghana\" was not removed: the answer was not yes. Nothing was changed."))
        #expect(try Self.wins(store)["Ghana"] == 2)

        let confirmed = try remove(answering: "y")
        #expect(confirmed.status == 0, "\(confirmed.stdout)")
        #expect(confirmed.stdout.contains("Removed Ghana (Africa, 2 wins)"))
        #expect(try Self.wins(store)["Ghana"] == nil)
    }

    /// The README's roles: a viewer may correct nothing, a scorer may set wins (it keeps the
    /// score) but neither rename nor remove, an organiser may do all three.
    @Test func theREADMEsRolesDecideWhoMayCorrect() throws {
        let setup = try ReadmeSharedSetup(worldcup: WorldCupProcess.binary)
        func run(_ role: String, _ arguments: [String]) throws -> WorldCupProcess.Result {
            try WorldCupProcess.run(arguments + ["--db", setup.uri(role: role)])
        }
        let viewer = try run("viewer", ["set-wins", "Brazil", "4"])
        #expect(viewer.status == 1)
        #expect(
            viewer.stderr.contains(
                "read-only: the PostgreSQL role \"\(setup.logins["viewer"] ?? "")\" may not set wins"),
            "\(viewer.stderr)")
        #expect(try run("scorer", ["set-wins", "Brazil", "4"]).stdout == "Set Brazil's wins from 0 to 4\n")
        let scorerRename = try run("scorer", ["rename", "Brazil", "Brasil"])
        #expect(
            scorerRename.status == 1 && scorerRename.stderr.contains("may not rename teams"), "\(scorerRename.stderr)")
        let scorerRemove = try run("scorer", ["remove", "Brazil", "--yes"])
        #expect(
            scorerRemove.status == 1 && scorerRemove.stderr.contains("may not delete teams"), "\(scorerRemove.stderr)")
        #expect(try run("organiser", ["rename", "Brazil", "Brasil"]).status == 0)
        #expect(
            try run("organiser", ["remove", "Brasil", "--yes"]).stdout == "Removed Brasil (South America, 4 wins)\n")
        let left = try WorldCupProcess.run(["list", "--db", setup.ownerURI])
        #expect(!left.stdout.contains("Bra"), "\(left.stdout)")
        #expect(left.stdout.contains("South America (5 teams)"), "\(left.stdout)")
    }
}
