import FetchedResults
import Foundation
import GRDB
import TerminalUI
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// Shared ranks, the leaders' mark, the movement column and the last change's time, on the
/// in-memory grid, against ranks counted from every team in the store.
@Suite struct MovementAndRankTests {
    typealias Harness = ScoreboardScreenTests.Harness

    /// What a team's row shows before its code: the leader's mark, the rank, the movement.
    struct RowMarks: Equatable {
        var leads: Bool
        var rank: Int
        var movement: String?
    }

    static func marks(of name: String, in h: Harness) throws -> RowMarks {
        let line = try #require(h.row(of: name).map { h.grid.line($0) }, "\(name) is on screen")
        let leads = line.hasPrefix("★")
        let tokens = line.dropFirst().split(separator: " ")
        let rank = try #require(Int(tokens[0]), "a rank in \(line)")
        let movement =
            tokens[1].hasPrefix("▲") || tokens[1].hasPrefix("▼") || tokens[1] == "NEW" ? String(tokens[1]) : nil
        return RowMarks(leads: leads, rank: rank, movement: movement)
    }

    /// The oracle: each team's rank counted the slow, plain way, from every team in the store:
    /// one more than the teams of its zone with more wins.
    static func ranks(in store: TeamStore) throws -> [String: Int] {
        let teams = try store.pool.read { db in try Team.fetchAll(db) }
        var ranks: [String: Int] = [:]
        for team in teams {
            let above = teams.filter {
                NoCase.key($0.qualifyingZone) == NoCase.key(team.qualifyingZone) && $0.wins > team.wins
            }
            ranks[team.teamName] = above.count + 1
        }
        return ranks
    }

    static func setWins(_ wins: [String: Int], in store: TeamStore) throws {
        let other = try DatabaseQueue(path: store.path)  // another writer, as another process would be
        try other.write { db in
            for (name, count) in wins {
                try db.execute(sql: "UPDATE team SET wins = ? WHERE teamName = ?", arguments: [count, name])
            }
        }
    }

    /// The search, with and without a hint anywhere (or outside the rows), against counting.
    @Test func sharedRankEqualsCountingTheTeamsWithMoreWins() {
        var random = SplitMix64(seed: 48)
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...40, using: &random)
            let wins = (0..<count).map { _ in Int.random(in: 0...6, using: &random) }.sorted(by: >)
            let asked = Int.random(in: -1...7, using: &random)
            let counted = wins.filter { $0 > asked }.count + 1
            #expect(SharedRank.rank(ofWins: asked, amongDescending: count) { wins[$0] } == counted)
            let hint = Int.random(in: -2...(count + 2), using: &random)
            #expect(SharedRank.rank(ofWins: asked, amongDescending: count, near: hint) { wins[$0] } == counted)
        }
    }

    @Test func tiedTeamsShareTheirRankAndEveryLeaderIsMarked() throws {
        let h = try Harness()
        try Self.setWins(
            ["Spain": 6, "Italy": 5, "France": 4, "Germany": 4, "England": 3, "Algeria": 2, "Ghana": 2], in: h.store)
        h.driver.storeChanged()
        let ranks = try Self.ranks(in: h.store)
        #expect(ranks.count == 32)
        for (name, rank) in ranks {
            let shown = try Self.marks(of: name, in: h)
            #expect(shown.rank == rank, "\(name)")
            #expect(shown.leads == (rank == 1), "\(name): ★ for every team sharing first place")
        }
        // The sports table's rule, spelled out: both 3rd, the next 5th.
        #expect(try Self.marks(of: "France", in: h).rank == 3)
        #expect(try Self.marks(of: "Germany", in: h).rank == 3)
        #expect(try Self.marks(of: "England", in: h).rank == 5)
        #expect(try Self.marks(of: "Algeria", in: h).leads && Self.marks(of: "Ghana", in: h).leads)
    }

    @Test func aWinMarksThePlacesGainedAndUndoThePlacesLost() throws {
        let h = try Harness()
        try Self.setWins(["Algeria": 3, "Cameroon": 2, "Ghana": 1, "Ivory Coast": 1], in: h.store)
        h.driver.storeChanged()
        h.driver.advance(by: .seconds(11))  // the others' changes' marks go
        let before = try #require(try Self.ranks(in: h.store)["Nigeria"])
        #expect(try Self.marks(of: "Nigeria", in: h) == RowMarks(leads: false, rank: before, movement: nil))
        try h.moveCursor(to: "Nigeria")
        h.press(.enter)
        let after = try #require(try Self.ranks(in: h.store)["Nigeria"])
        #expect(before - after == 2, "the oracle: 5th to a shared 3rd")
        #expect(try Self.marks(of: "Nigeria", in: h) == RowMarks(leads: false, rank: after, movement: "▲2"))
        #expect(try Self.marks(of: "Ghana", in: h).movement == nil, "a team the change set did not touch")
        h.driver.advance(by: .seconds(9))
        #expect(try Self.marks(of: "Nigeria", in: h).movement == "▲2", "still there 9 s on")
        h.driver.advance(by: .seconds(2))
        #expect(try Self.marks(of: "Nigeria", in: h).movement == nil, "gone after 10 s")
        h.press(.character("u"))
        #expect(try Self.marks(of: "Nigeria", in: h) == RowMarks(leads: false, rank: before, movement: "▼2"))
    }

    @Test func othersWinsMarkTheTeamsTheyMoved() throws {
        let h = try Harness()
        let first = try Self.ranks(in: h.store)
        try Self.setWins(["Brazil": 2, "Chile": 1], in: h.store)
        h.driver.storeChanged()
        let second = try Self.ranks(in: h.store)
        try Self.setWins(["Uruguay": 3], in: h.store)
        h.driver.storeChanged()
        let third = try Self.ranks(in: h.store)
        func movement(_ name: String, _ old: [String: Int], _ new: [String: Int]) -> String? {
            RankMovement(oldRank: old[name]!, newRank: new[name]!)?.mark
        }
        #expect(movement("Uruguay", second, third) == "▲2", "the oracle: 3rd to 1st")
        #expect(try Self.marks(of: "Uruguay", in: h) == RowMarks(leads: true, rank: 1, movement: "▲2"))
        #expect(movement("Brazil", first, second) == nil, "a shared 1st to 1st: nothing to mark")
        #expect(try Self.marks(of: "Brazil", in: h) == RowMarks(leads: false, rank: third["Brazil"]!, movement: nil))
        #expect(movement("Chile", first, second) == "▼1")
        #expect(try Self.marks(of: "Chile", in: h) == RowMarks(leads: false, rank: third["Chile"]!, movement: "▼1"))
        #expect(try Self.marks(of: "Colombia", in: h).movement == nil, "pushed down, but not in a change set")
    }

    @Test func anAddedTeamIsNewInItsZone() throws {
        let h = try Harness()
        h.addSecretTeam("Wenderland", zone: "Internets")
        #expect(try Self.marks(of: "Wenderland", in: h) == RowMarks(leads: true, rank: 1, movement: "NEW"))
        h.press(.character("+"))
        h.type("Atlantis")
        h.press(.tab)
        h.type("Europe")
        h.press(.enter)
        #expect(try Self.marks(of: "Atlantis", in: h) == RowMarks(leads: true, rank: 1, movement: "NEW"))
    }

    @Test func theTitleSaysWhenTheLastChangeCame() throws {
        let h = try Harness()
        #expect(h.grid.line(0) == "World Cup — 32 teams in 5 zones", "loading the standings is no change")
        let earliest = Date()
        h.press(.enter)
        let latest = Date()
        let title = h.grid.line(0)
        let prefix = "World Cup — 32 teams in 5 zones · last change "
        #expect(title.hasPrefix(prefix))
        let shown = String(title.dropFirst(prefix.count))
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        formatter.timeZone = .current
        let possible = Set([earliest, latest].map(formatter.string(from:)))
        #expect(possible.contains(shown), "\(shown) is the local time of the win (\(possible))")
    }

    /// A big zone's ranks, a long tie on 0 wins included, found by binary search over the
    /// rows: the same as the oracle's at the top, the middle and the end of the list.
    @Test func ranksInABigStoreMatchTheOracle() throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory, plusGenerated: 3_000, seed: 48, zones: 2)
        let driver = try ScoreboardDriver(store: store, rows: 40, columns: 100)
        driver.runWaitingWork()
        let teams = try store.pool.read { db in try Team.fetchAll(db) }
        var ranks: [Int64: Int] = [:]
        for team in teams {
            let zone = NoCase.key(team.qualifyingZone)
            ranks[team.id!] = teams.filter { NoCase.key($0.qualifyingZone) == zone && $0.wins > team.wins }.count + 1
        }
        var checked = 0
        var ranksSeen = Set<Int>()
        func checkScreen() {
            let screen = driver.screen
            for row in 0..<driver.grid.rows {
                // Which team a row shows is the table's business; its rank is what is checked.
                guard let index = screen.tableView.index(atScreenRow: row) else { continue }
                let id = screen.controller.rowID(at: IndexPath(row: index.row, section: index.section))
                let tokens = driver.grid.line(row).dropFirst().split(separator: " ")
                #expect(Int(tokens[0]) == ranks[id], "\(driver.grid.line(row))")
                ranksSeen.insert(ranks[id] ?? 0)
                checked += 1
            }
        }
        checkScreen()
        driver.press(.pageDown, .pageDown, .pageDown)
        checkScreen()
        driver.press(.character("]"))
        checkScreen()
        driver.press(.end)
        checkScreen()
        #expect(checked > 100)
        #expect(ranksSeen.count >= 3 && (ranksSeen.max() ?? 0) > 100, "ranks deep in a zone: \(ranksSeen.sorted())")
    }
}
