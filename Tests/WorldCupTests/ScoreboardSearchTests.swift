import FetchedResults
import Foundation
import GRDB
import TerminalUI
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// Search as in less and vim: `/` and `n` forward from the cursor, `N` back, over every match,
/// wrapping with a note; an exact count; the matched text highlighted in every visible row.
/// The oracle is the store's standings filtered in Swift.
@Suite struct ScoreboardSearchTests {
    typealias Harness = ScoreboardScreenTests.Harness

    /// The seed and `extra` generated teams, every team loaded.
    static func harness(extra: Int = 0, rows: Int = 40, columns: Int = 80) throws -> Harness {
        let h = try Harness(rows: rows, columns: columns)
        if extra > 0 {
            try Fixtures.addGeneratedTeams(extra, seed: 1, zones: 12, to: h.store)
            _ = h.screen.showExternalChanges(at: h.driver.now)
        }
        while h.screen.isLoadingStandings { h.screen.loadMoreStandings() }
        h.screen.render()
        return h
    }

    /// The teams whose names contain `text` (ASCII letters in either case), in standings order.
    static func matches(_ text: String, in h: Harness) throws -> [Team] {
        try h.store.teamsInStandingsOrder().filter { NoCase.key($0.teamName).contains(NoCase.key(text)) }
    }

    static func cursorTeamID(_ h: Harness) -> Int64? { h.screen.binding.cursorRowID }

    /// Sends keys, and after each counts the search's matches to the end, as the event loop does
    /// between keys.
    static func press(_ h: Harness, _ keys: Key...) {
        for key in keys {
            h.press(key)
            while h.screen.hasSearchToCount {
                h.screen.countSearchStep()
                h.screen.render()
            }
        }
    }

    /// Puts the cursor on a team, as a user would reach it.
    static func moveCursor(_ h: Harness, to team: Team) throws {
        let indexPath = try #require(h.screen.controller.indexPath(forRowID: team.id!))
        h.screen.moveCursor { $0.setCursor(TableIndex(section: indexPath.section, row: indexPath.row)) }
        h.screen.render()
    }

    var status: (Harness) -> String { { $0.grid.line($0.grid.rows - 1) } }

    @Test func everyMatchIsCountedAndNFromTheFirstReachesTheLast() throws {
        let h = try Self.harness(extra: 2_500)
        let standings = try h.store.teamsInStandingsOrder()
        let found = try Self.matches("a", in: h)
        try #require(found.count > 1_000, "more matches than the old cap")
        h.press(.home)
        Self.press(h, .character("/"), .character("a"), .enter)
        #expect(Self.cursorTeamID(h) == found[0].id)
        #expect(status(h).hasPrefix("/a — 1 of \(Thousands.grouped(found.count))"), "\(status(h))")
        Self.press(h, .character("N"))
        #expect(Self.cursorTeamID(h) == found.last!.id, "N from the first match goes round to the last")
        #expect(
            status(h).hasPrefix("/a — \(Thousands.grouped(found.count)) of \(Thousands.grouped(found.count))"),
            "\(status(h))")
        #expect(status(h).contains("search hit TOP, continuing at BOTTOM"), "\(status(h))")

        // From a team in the middle, n goes on to the next match after it, not back to the top.
        let middle = standings[standings.count * 3 / 4]
        try Self.moveCursor(h, to: middle)
        Self.press(h, .character("n"))
        let after = standings[(standings.count * 3 / 4 + 1)...].first { NoCase.key($0.teamName).contains("a") }!
        #expect(Self.cursorTeamID(h) == after.id)
        let ordinal = found.firstIndex { $0.id == after.id }! + 1
        #expect(
            status(h).hasPrefix("/a — \(Thousands.grouped(ordinal)) of \(Thousands.grouped(found.count))"),
            "\(status(h))")
        h.press(.character("N"))
        let before = standings[..<(standings.count * 3 / 4 + 1)].last { NoCase.key($0.teamName).contains("a") }!
        #expect(Self.cursorTeamID(h) == before.id, "N goes back to the match before")
    }

    @Test func typedSearchStartsAtTheCursorAndWrapsWithANote() throws {
        let h = try Self.harness()
        let standings = try h.store.teamsInStandingsOrder()
        // From the team after the first match, the next match down, not the first from the top.
        let first = standings.firstIndex { NoCase.key($0.teamName).contains("an") }!
        let origin = first + 1
        let expected = try #require(standings[origin...].first { NoCase.key($0.teamName).contains("an") })
        try Self.moveCursor(h, to: standings[origin])
        h.press(.character("/"))
        h.type("an")
        #expect(Self.cursorTeamID(h) == expected.id, "the cursor goes to the first match from where it was")
        #expect(!status(h).contains("search hit"), "\(status(h))")
        h.press(.escape)
        #expect(Self.cursorTeamID(h) == standings[origin].id, "Esc goes back")

        // From the last team, a text only earlier teams hold: round to the top, with vim's note.
        h.press(.end)
        let last = standings.last!
        try #require(!NoCase.key(last.teamName).contains("ger"))
        h.press(.character("/"))
        h.type("ger")
        let gers = try Self.matches("ger", in: h)
        #expect(Self.cursorTeamID(h) == gers[0].id)
        #expect(status(h).contains("search hit BOTTOM, continuing at TOP"), "\(status(h))")
        h.press(.enter)
        #expect(status(h).hasPrefix("/ger — 1 of \(gers.count)"), "\(status(h))")
        for next in gers.dropFirst() {
            h.press(.character("n"))
            #expect(Self.cursorTeamID(h) == next.id)
            #expect(!status(h).contains("search hit"), "no note while the search goes on down")
        }
        h.press(.character("n"))
        #expect(Self.cursorTeamID(h) == gers[0].id)
        #expect(status(h).contains("search hit BOTTOM, continuing at TOP"), "\(status(h))")
    }

    @Test func nAfterASearchWithNoMatchRepeatsIt() throws {
        let h = try Self.harness()
        h.press(.character("/"))
        h.type("zzz")
        #expect(status(h).hasPrefix("/zzz  — no match"), "\(status(h))")
        let before = Self.cursorTeamID(h)
        h.press(.enter)
        #expect(status(h).hasPrefix("/zzz — no match"), "\(status(h))")
        #expect(Self.cursorTeamID(h) == before)
        h.press(.character("n"))
        #expect(status(h).hasPrefix("/zzz — no match"), "n repeats the search: \(status(h))")
        #expect(Self.cursorTeamID(h) == before)

        // Another terminal adds a team that matches: n finds it.
        try TeamStore.open(path: h.store.path).addTeam(name: "Zzzland", zone: "Asia")
        _ = h.screen.showExternalChanges(at: h.driver.now)
        h.press(.character("n"))
        let zzzland = try #require(try h.store.teamsInStandingsOrder().first { $0.teamName == "Zzzland" })
        #expect(Self.cursorTeamID(h) == zzzland.id)
        #expect(status(h).hasPrefix("/zzz — 1 of 1"), "\(status(h))")
    }

    /// The screen columns of a team's row that show `text` inside its name, computed from what
    /// the grid shows (the oracle knows nothing of the row's layout).
    static func matchedColumns(
        of text: String, row: Int, name: String, in h: Harness
    ) throws -> (name: Range<Int>, matched: Set<Int>) {
        let line = h.grid.line(row)
        let nameStart = try #require(line.range(of: name), "row \(row) shows \(name)")
        let nameColumn = TextWidth.columns(of: String(line[..<nameStart.lowerBound]))
        var matched: Set<Int> = []
        let folded = Array(NoCase.key(name).utf8)
        let wanted = Array(NoCase.key(text).utf8)
        var offset = 0
        while offset + wanted.count <= folded.count {
            if Array(folded[offset..<(offset + wanted.count)]) == wanted {
                let startColumn =
                    nameColumn + TextWidth.columns(of: String(decoding: Array(name.utf8)[..<offset], as: UTF8.self))
                let width = TextWidth.columns(
                    of: String(decoding: Array(name.utf8)[offset..<(offset + wanted.count)], as: UTF8.self))
                matched.formUnion(startColumn..<(startColumn + width))
                offset += wanted.count
            } else {
                offset += 1
            }
        }
        return (nameColumn..<(nameColumn + TextWidth.columns(of: name)), matched)
    }

    /// Checks every visible team row: the cells of matched text are marked, the rest of the
    /// name is not. Returns how many rows had a match.
    static func checkMarks(
        _ text: String?, in h: Harness, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Int {
        var rowsWithMatches = 0
        for row in h.screen.tableView.top..<(h.screen.tableView.top + h.screen.tableView.height) {
            guard let index = h.screen.tableView.index(atScreenRow: row),
                let team = try h.screen.controller.objectIfPresent(
                    at: IndexPath(row: index.row, section: index.section))
            else { continue }
            let (name, matched) = try matchedColumns(of: text ?? "\u{1}", row: row, name: team.teamName, in: h)
            if !matched.isEmpty { rowsWithMatches += 1 }
            for column in name {
                let style = h.grid.style(row: row, column: column)
                let marked = style.contains(.underline) && style.contains(.bold)
                #expect(
                    marked == matched.contains(column), "row \(row) \(team.teamName) column \(column): \(style)",
                    sourceLocation: sourceLocation)
                #expect(
                    style.contains(.reverse) == (row == h.screen.tableView.cursorScreenRow),
                    sourceLocation: sourceLocation)
            }
        }
        return rowsWithMatches
    }

    @Test func theMatchedTextIsHighlightedInEveryVisibleRow() throws {
        let h = try Self.harness()
        try h.store.addTeam(name: "日本 Banana", zone: "Asia")
        try h.store.addTeam(name: "Ananas", zone: "Asia")
        _ = h.screen.showExternalChanges(at: h.driver.now)
        h.screen.render()
        h.press(.character("/"))
        h.type("AN")
        #expect(try Self.checkMarks("an", in: h) >= 5, "while typing")
        h.press(.backspace)
        #expect(try Self.checkMarks("a", in: h) >= 10, "the marks follow the text")
        h.type("n")
        h.press(.enter)
        #expect(try Self.checkMarks("an", in: h) >= 5, "after Enter, as in less")
        h.press(.down, .down, .character("n"))
        #expect(try Self.checkMarks("an", in: h) >= 5, "moving and stepping keep them")

        #expect(h.screen.handle(.escape) == .redraw, "Esc first clears the highlight")
        h.screen.render()
        #expect(try Self.checkMarks(nil, in: h) == 0)
        h.press(.character("n"))
        #expect(try Self.checkMarks("an", in: h) >= 5, "n shows them again")
        _ = h.screen.handle(.escape)
        #expect(h.screen.handle(.escape) == .quit(.quit), "a second Esc quits")
    }

    /// The first Esc after a search clears what the search left on screen, whether it found
    /// anything or not: after "no match", a newcomer's Esc quit the scoreboard.
    @Test func theFirstEscAfterASearchThatFoundNothingClearsIt() throws {
        let h = try Self.harness()
        h.press(.character("/"))
        h.type("xyzzy")
        h.press(.enter)
        #expect(status(h).contains("/xyzzy — no match"), "\(status(h))")
        #expect(h.screen.handle(.escape) == .redraw, "Esc first clears the search")
        h.screen.render()
        #expect(!status(h).contains("xyzzy"), "\(status(h))")
        #expect(h.screen.handle(.escape) == .quit(.quit), "a second Esc quits")
    }

    @Test func aCountStillBeingMadeSaysSoUntilItIsExact() throws {
        let h = try Self.harness(extra: 2_500)
        h.screen.searchCountPerKey = .zero  // one chunk of teams per key and per step
        h.screen.searchCountStep = .zero
        let found = try Self.matches("a", in: h)
        let total = Thousands.grouped(found.count)
        h.press(.home, .character("/"), .character("a"))
        #expect(status(h).hasPrefix("/a  — 1 of ") && status(h).contains("+ (counting…)"), "\(status(h))")
        var steps = 0
        while h.screen.hasSearchToCount {
            h.screen.countSearchStep()
            h.screen.render()
            steps += 1
        }
        #expect(steps >= 2, "the count took steps between keys")
        #expect(status(h).hasPrefix("/a  — 1 of \(total)") && !status(h).contains("counting"), "\(status(h))")

        // The last match before the count reaches it: its place is not known yet.
        h.press(.escape)
        try Self.moveCursor(h, to: found.last!)
        h.press(.character("/"), .character("a"))
        #expect(status(h).hasPrefix("/a  — ? of ") && status(h).contains("+ (counting…)"), "\(status(h))")
        Self.press(h, .enter)
        #expect(status(h).hasPrefix("/a — \(total) of \(total)"), "\(status(h))")

        // A win moves a team: the count starts again, says so, and ends where it was.
        let winner = try #require(Self.cursorTeamID(h))
        h.press(.enter, .character("n"))
        #expect(status(h).contains("+ (counting…)"), "\(status(h))")
        while h.screen.hasSearchToCount {
            h.screen.countSearchStep()
            h.screen.render()
        }
        let now = try Self.matches("a", in: h)
        let place = now.firstIndex { $0.id == winner }!
        let next = place + 1 < now.count ? place + 1 : 0
        #expect(Self.cursorTeamID(h) == now[next].id)
        #expect(status(h).hasPrefix("/a — \(Thousands.grouped(next + 1)) of \(total)"), "\(status(h))")
    }

    @Test func whileTheStandingsLoadASearchSaysWhatItCovers() throws {
        TextWidth.prepareLocale()
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory, plusGenerated: 3_000, seed: 3)
        let driver = try ScoreboardDriver(store: store, rows: 30, columns: 100)
        let grid = driver.grid, screen = driver.screen
        try #require(screen.isLoadingStandings)
        func settle() {
            while screen.hasSearchToCount {
                screen.countSearchStep()
                screen.render()
            }
        }
        for key in [Key.character("/"), .character("a"), .enter] {
            driver.press(key)
            settle()
        }
        let standings = try store.teamsInStandingsOrder()
        let loaded = standings.prefix(LoadPacer.firstRows).filter { NoCase.key($0.teamName).contains("a") }.count
        #expect(
            grid.line(29).hasPrefix("/a — 1 of \(Thousands.grouped(loaded)) in the 1,000 teams loaded so far"),
            "\(grid.line(29))")
        while screen.isLoadingStandings {
            screen.loadMoreStandings()
            settle()
            screen.render()
        }
        let all = standings.filter { NoCase.key($0.teamName).contains("a") }.count
        #expect(
            grid.line(29).hasPrefix("/a — 1 of \(Thousands.grouped(all))")
                && !grid.line(29).contains("loaded so far"),
            "the count goes on over the teams loaded since: \(grid.line(29))")
    }
}
