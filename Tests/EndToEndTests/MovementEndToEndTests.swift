import Foundation
import TestSupport
import Testing

/// Movement and ties in a real terminal: others' wins and this scoreboard's own, read back from
/// tmux against ranks counted from `worldcup list --json`.
@Suite(.serialized) struct MovementEndToEndTests {
    /// The oracle: each team's rank, one more than the teams of its zone with more wins.
    static func ranks(store: String) throws -> [String: Int] {
        let listed = try WorldCupProcess.run(["list", "--json", "--db", store])
        let zones = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        var ranks: [String: Int] = [:]
        for zone in zones {
            let teams = (zone["teams"] as? [[String: Any]] ?? []).map {
                ($0["teamName"] as? String ?? "", $0["wins"] as? Int ?? -1)
            }
            for (name, wins) in teams { ranks[name] = teams.filter { $0.1 > wins }.count + 1 }
        }
        return ranks
    }

    /// The row's text before the code: `★  1 ▲2 ` (leader, rank, movement).
    static func marks(of name: String, in terminal: Tmux) -> String? {
        guard let line = terminal.lines.first(where: { $0.contains(" \(name) ") }) else { return nil }
        return String(line.prefix(10))
    }

    @Test func sharedRanksAndAWinsMovementInATerminal() throws {
        let directory = TemporaryDirectory()
        let terminal = try Tmux(command: directory.scoreboard)
        #expect(terminal.waitFor("World Cup — 32 teams in 5 zones"))
        #expect(!(terminal.lines.first ?? "").contains("last change"), "no change yet")
        for (name, wins) in [("Spain", 3), ("Italy", 2), ("France", 1), ("Belgium", 1)] {
            let won = try WorldCupProcess.run(["win", name, "--count", "\(wins)", "--db", directory.store])
            try #require(won.status == 0, "\(won.stderr)")
        }
        #expect(terminal.wait { _ in terminal.wins(of: "Belgium") == 1 })
        let before = try Self.ranks(store: directory.store)
        #expect(terminal.wait { _ in Self.marks(of: "Croatia", in: terminal)?.hasPrefix("   5 ") == true })
        for (name, rank) in before {
            let shown = Self.marks(of: name, in: terminal) ?? ""
            #expect(shown.hasPrefix((rank == 1 ? "★" : " ") + String(format: "%3d ", rank)), "\(name): \(shown)")
        }
        #expect(terminal.lines.first?.contains(#/ · last change \d\d:\d\d:\d\d$/#) == true, "\(terminal.lines[0])")

        try #require(try terminal.moveCursor(to: "Germany"))
        try terminal.press("Enter")
        #expect(terminal.wait { _ in terminal.wins(of: "Germany") == 1 })
        let once = try Self.ranks(store: directory.store)
        #expect((before["Germany"], once["Germany"]) == (5, 3), "the oracle: a shared 5th to a shared 3rd")
        #expect(terminal.wait { _ in Self.marks(of: "Germany", in: terminal) == "   3 ▲2   " }, "\(terminal.lines)")
        #expect(terminal.wait { _ in Self.marks(of: "Croatia", in: terminal) == "   6      " }, "pushed down a place")

        try terminal.press("Enter")
        #expect(terminal.wait { _ in terminal.wins(of: "Germany") == 2 })
        let twice = try Self.ranks(store: directory.store)
        #expect((once["Germany"], twice["Germany"]) == (3, 2), "the oracle: to a 2nd shared with Italy")
        #expect(terminal.wait { _ in Self.marks(of: "Germany", in: terminal) == "   2 ▲1   " }, "\(terminal.lines)")
        #expect(Self.marks(of: "Italy", in: terminal) == "   2      ", "tied with Germany, in no change set")
        #expect(Self.marks(of: "France", in: terminal)?.hasPrefix("   4 ") == true, "France and Belgium pushed down")
    }
}
