import Foundation
import TestSupport
import Testing

/// What other programs do to the store while a scoreboard is open: it follows them at once,
/// and its undo never takes back their work.
@Suite(.serialized) struct OtherWritersEndToEndTests {
    /// A seed-shaped file of `count` teams whose names start with `prefix`.
    static func teamsFile(in directory: TemporaryDirectory, prefix: String, count: Int) -> String {
        let entries = (0..<count).map {
            #"{"teamName": "\#(prefix) \#($0)", "qualifyingZone": "Zone \#($0 % 7)", "#
                + #""imageName": null, "wins": \#($0 % 13)}"#
        }
        return directory.file("\(prefix).json", contents: "[" + entries.joined(separator: ",\n") + "]")
    }

    /// Issue 12, bug 2: undoing an added team deleted it with the wins someone else had given
    /// it since. Undo takes back only what is still exactly as this scoreboard left it.
    @Test func undoNeverDestroysAnotherWritersWins() throws {
        let directory = TemporaryDirectory()
        let terminal = try Tmux(command: directory.scoreboard)
        #expect(terminal.waitFor("World Cup — 32 teams"))
        #expect(try terminal.addSecretTeam(name: "Wenderland", zone: "Internets"))
        #expect(terminal.waitFor("Internets (1 team)"))
        let won = try WorldCupProcess.run(["win", "wenderland", "--count", "5", "--db", directory.store])
        try #require(won.status == 0, "\(won.stderr)")
        #expect(terminal.wait { _ in terminal.wins(of: "Wenderland") == 5 })

        try terminal.press("u")
        #expect(terminal.waitFor("Not undone: Wenderland was changed elsewhere"), "\(terminal.statusLine)")
        usleep(300_000)
        #expect(terminal.wins(of: "Wenderland") == 5, "the team and the other writer's wins are kept")
        #expect(terminal.lines.first?.hasPrefix("World Cup — 33 teams in 6 zones · last change ") == true)
        let listed = try WorldCupProcess.run(["win", "Wenderland", "--count", "1", "--db", directory.store])
        #expect(listed.status == 0, "the team is still in the store: \(listed.stderr)")
    }
}
