import Foundation
import TestSupport
import Testing

/// Movement and ties on the page, in a real headless Chromium: shared ranks and the leaders'
/// ★ against ranks counted from `worldcup list --json`, a ▲n on the row a shell's win moved
/// (with its words for a screen reader) for a while, the last change's time, and the keyboard's
/// focus kept on a row that moves.
@Suite(.serialized) struct ServeMovementPageTests {
    /// What a row shows beside its name.
    struct Marks: Equatable {
        var rank: Int
        var leads: Bool
        var move: String
        var spoken: String?
    }

    static func marks(_ browser: WebDriver) throws -> [String: Marks] {
        let rows =
            try browser.run(
                """
                return Array.from(document.querySelectorAll('#standings li.team')).map((li) => {
                    const move = li.querySelector('.move');
                    return { name: li.querySelector('.name').textContent, rank: li.querySelector('.rank').textContent,
                        lead: li.querySelector('.lead').textContent, leadLabel: li.querySelector('.lead').getAttribute('aria-label'),
                        move: move.textContent, role: move.getAttribute('role'), spoken: move.getAttribute('aria-label') };
                });
                """) as? [[String: Any]] ?? []
        var marks: [String: Marks] = [:]
        for row in rows {
            let leads = row["lead"] as? String == "★" && row["leadLabel"] as? String == "leader"
            let spoken = row["role"] as? String == "img" ? row["spoken"] as? String : nil
            marks[row["name"] as? String ?? ""] = Marks(
                rank: Int(row["rank"] as? String ?? "") ?? -1, leads: leads, move: row["move"] as? String ?? "",
                spoken: spoken)
        }
        return marks
    }

    /// The oracle: each team's rank counted from the listed standings, one more than the teams
    /// of its zone with more wins.
    static func ranks(db: String) throws -> [String: Int] {
        var ranks: [String: Int] = [:]
        for zone in try listedStandings(db: db) {
            let teams = zone.dropFirst().map { entry in
                let parts = entry.split(separator: "=")
                return (name: String(parts[0]), wins: Int(parts[1]) ?? -1)
            }
            for team in teams { ranks[team.name] = teams.filter { $0.wins > team.wins }.count + 1 }
        }
        return ranks
    }

    static func sameRanks(_ browser: WebDriver, db: String) throws -> Bool {
        let shown = try marks(browser)
        let ranks = try ranks(db: db)
        return shown.count == ranks.count
            && ranks.allSatisfy { name, rank in shown[name]?.rank == rank && shown[name]?.leads == (rank == 1) }
    }

    @Test func ranksTiesMovementAndFocusOnThePage() throws {
        let store = try StoreKind.sqlite.makeStore()
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home")
        let browser = try WebDriver()
        try browser.open(try #require(serve.scorerLink))
        try #require(try browser.wait { try PageRows.read(browser).ready })
        let lastChange = "return document.getElementById('last-change').textContent;"
        #expect(try browser.run(lastChange) as? String == "", "no change yet: no time")
        #expect(try Self.sameRanks(browser, db: store.db), "everyone on 0 wins: all share 1st, all lead")
        for (name, wins) in [("Spain", 6), ("Italy", 5), ("France", 4), ("Germany", 4), ("England", 3)] {
            #expect(try worldcup(["win", name, "--count", "\(wins)"], db: store.db).status == 0)
        }
        #expect(try browser.wait { try PageRows.read(browser).row(named: "England")?.wins == 3 })
        #expect(try browser.wait { try Self.sameRanks(browser, db: store.db) })
        let tied = try Self.marks(browser)
        #expect(tied["France"]?.rank == 3 && tied["Germany"]?.rank == 3 && tied["England"]?.rank == 5)
        let time = try #require(try browser.run(lastChange) as? String)
        #expect(time.wholeMatch(of: /Last change \d\d:\d\d:\d\d/) != nil, "\(time)")

        // The keyboard on England's row, which a shell's win then moves up.
        try browser.press([WebDriver.Key.tab])
        let england = try #require(try PageRows.read(browser).row(named: "England")).id
        try browser.run("document.querySelector(`li.team[data-id='${arguments[0]}'] button.tap`).focus();", [england])
        let before = try #require(try Self.ranks(db: store.db)["England"])
        #expect(try worldcup(["win", "England", "--count", "2"], db: store.db).status == 0)
        let after = try #require(try Self.ranks(db: store.db)["England"])
        #expect((before, after) == (5, 2), "the oracle: a shared 2nd with Italy")
        #expect(try browser.wait { try Self.marks(browser)["England"]?.move == "▲3" })
        #expect(try Self.marks(browser)["England"]?.spoken == "up 3 places")
        #expect(try Self.sameRanks(browser, db: store.db), "France and Germany pushed to a shared 4th")
        let focused = """
            const row = document.activeElement.closest('li.team');
            return row ? Number(row.dataset.id) : -1;
            """
        #expect(try browser.run(focused) as? Int == england, "the focus stayed on the row that moved")
        let order = try PageRows.read(browser).sections.first { $0.name == "Europe" }?.rows.map(\.name) ?? []
        #expect(order.prefix(3) == ["Spain", "England", "Italy"], "\(order)")

        // The marks go after a while (10 s), the ranks stay.
        #expect(try browser.wait(timeout: 16) { try Self.marks(browser).values.allSatisfy { $0.move.isEmpty } })
        #expect(try Self.marks(browser).values.allSatisfy { $0.spoken == nil })
        #expect(try Self.sameRanks(browser, db: store.db))
        #expect(serve.stop() == 0)
    }

    @Test func anAddedTeamIsNewAndTheServersRowsShowSharedRanks() throws {
        let store = try StoreKind.sqlite.makeStore()
        #expect(try worldcup(["win", "Brazil", "--count", "2"], db: store.db).status == 0)
        #expect(try worldcup(["win", "Chile", "--count", "2"], db: store.db).status == 0)
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home")
        // Without JavaScript: the server's rows carry the same ranks and marks.
        let html = try HTTPClient.request("GET", serve.viewerLink).text
        #expect(
            html.contains(
                #"<span class="rank">1</span><span class="lead" role="img" aria-label="leader">★</span><span class="move"></span><span class="name">Brazil</span>"#
            ))
        #expect(
            html.contains(
                #"<span class="rank">1</span><span class="lead" role="img" aria-label="leader">★</span><span class="move"></span><span class="name">Chile</span>"#
            ))
        #expect(
            html.contains(
                #"<span class="rank">3</span><span class="lead"></span><span class="move"></span><span class="name">Argentina</span>"#
            ))
        let browser = try WebDriver()
        try browser.open(serve.viewerLink)
        try #require(try browser.wait { try PageRows.read(browser).ready })
        #expect(try Self.sameRanks(browser, db: store.db))
        #expect(try worldcup(["add", "--name", "Wenderland", "--zone", "Internets"], db: store.db).status == 0)
        #expect(try worldcup(["add", "--name", "Atlantis", "--zone", "Europe"], db: store.db).status == 0)
        #expect(try browser.wait { try Self.marks(browser)["Atlantis"] != nil })
        let marks = try Self.marks(browser)
        #expect(marks["Wenderland"] == Marks(rank: 1, leads: true, move: "NEW", spoken: "new"))
        #expect(marks["Atlantis"] == Marks(rank: 1, leads: true, move: "NEW", spoken: "new"))
        #expect(try Self.sameRanks(browser, db: store.db))
        #expect(serve.stop() == 0)
    }
}
