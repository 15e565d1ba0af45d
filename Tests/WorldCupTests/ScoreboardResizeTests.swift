import Foundation
import TerminalUI
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// The selected team through resizes (issue 22, bug 2), and rows as wide as the window.
@Suite struct ScoreboardResizeTests {
    typealias Harness = ScoreboardScreenTests.Harness

    /// The rows drawn in reverse video (the highlight bar).
    static func highlightedRows(_ grid: GridSurface) -> [Int] {
        (0..<grid.rows).filter { row in grid.style(row: row, column: 0).contains(.reverse) }
    }

    /// At 100×40, G, then 60×15: the bar stays on the last team, and Enter counts for it.
    @Test func shrinkingTheWindowKeepsTheSelectedTeamOnScreen() throws {
        let h = try Harness(rows: 40, columns: 100)
        h.press(.character("G"))
        #expect(h.cursorLine.contains(" Uruguay "))
        h.grid.resize(rows: 15, columns: 60)
        h.press(.resize)
        #expect(Self.highlightedRows(h.grid).count == 1, "the highlight bar is on screen")
        #expect(h.cursorLine.contains(" Uruguay "), "on the team selected before: \(h.grid.lines)")
        h.press(.enter)
        let uruguay = try h.store.teamsInStandingsOrder().first { $0.teamName == "Uruguay" }
        #expect(uruguay?.wins == 1, "Enter counts for it")
    }

    /// Random moves and resizes at sizes down to two rows: after every step exactly one row is
    /// highlighted, and it shows the selected team.
    @Test func theSelectedTeamIsOnScreenAfterEveryMoveAndResize() throws {
        let seed: UInt64 = 22_02
        print("theSelectedTeamIsOnScreenAfterEveryMoveAndResize seed \(seed)")
        var random = SplitMix64(seed: seed)
        let h = try Harness(rows: 40, columns: 100)
        // The oracle for what the bar must show: the selected team's name, read from the store
        // by the id the screen follows (nothing is written here, so read once).
        let names = Dictionary(uniqueKeysWithValues: try h.store.teamsInStandingsOrder().map { ($0.id!, $0.teamName) })
        let moves: [Key] = [
            .up, .down, .pageUp, .pageDown, .home, .end, .control("d"), .control("u"),
            .character("]"), .character("["), .wheelUp, .wheelDown,
        ]
        for step in 0..<1_000 {
            if Int.random(in: 0..<4, using: &random) == 0 {
                let rows = Int.random(in: 2...45, using: &random), columns = Int.random(in: 20...120, using: &random)
                h.grid.resize(rows: rows, columns: columns)
                h.press(.resize)
            } else {
                h.press(moves.randomElement(using: &random)!)
            }
            let size = "step \(step), \(h.grid.rows)×\(h.grid.columns)"
            let bars = Self.highlightedRows(h.grid)
            try #require(bars.count == 1, "\(size): one highlighted row, not \(bars): \(h.grid.lines)")
            let name = try #require(h.screen.binding.cursorRowID.flatMap { names[$0] }, "\(size): a team is selected")
            let shown = h.grid.line(bars[0])
            // A narrow window cuts long names with "…", and drops the code, then the rank:
            // compare what fits, between the leader's ★, the rank, the movement and the code
            // (when shown) and the wins.
            let visible = shown.replacing(/^★? *[0-9]+ +(?:(?:▲[0-9]+|▼[0-9]+|NEW) +)?(?:[A-Z]{3}  +)?/, with: "")
                .replacing(/\ +[0-9][0-9,]*$/, with: "").trimmingCharacters(in: .whitespaces)
            try #require(
                !visible.isEmpty && name.hasPrefix(visible.replacingOccurrences(of: "…", with: "")),
                "\(size): the bar shows \"\(shown)\", the selected team is \(name)")
        }
    }

    /// A message longer than the status line wraps over rows taken from the list (at most
    /// four), and the list takes them back with the next key: each frame equals a fresh draw.
    @Test func aLongMessageWrapsAndTheListTakesItsRowsBack() throws {
        let h = try Harness(rows: 24, columns: 40)
        h.press(.end)
        let words = (1...40).map { "word\($0)" }
        h.screen.message = words.joined(separator: " ")
        h.screen.render()
        let status = (20..<24).map(h.grid.line)
        let shown = status.joined(separator: " ")
        #expect(shown.hasSuffix("…"), "cut after four rows: \(status)")
        #expect(
            words.joined(separator: " ").hasPrefix(shown.dropLast()),
            "the text in order, broken at spaces: \(status)")
        #expect(status.allSatisfy { TextWidth.columns(of: $0) <= 40 })
        #expect(
            h.screen.tableView.height == 18 && h.cursorLine.contains(" Uruguay "),
            "the selected team stays on screen")
        #expect(try DialogRedrawTests.differencesFromAFreshDraw(h) == [])
        h.screen.message = "A message of two rows: " + words.prefix(5).joined(separator: " ")
        h.screen.render()
        #expect(h.grid.line(22).hasPrefix("A message of two rows:") && h.grid.line(23) == "word4 word5")
        #expect(try DialogRedrawTests.differencesFromAFreshDraw(h) == [])
        h.press(.up)
        #expect(h.screen.tableView.height == 21, "one status row again")
        #expect(h.grid.line(23).hasSuffix("31 / 32"), "with the position: \(h.grid.line(23))")
        #expect(try DialogRedrawTests.differencesFromAFreshDraw(h) == [])
    }

    /// The headings, the rows and the highlight bar span the window at any width (issue 22: at
    /// 100 columns the bar ended at column 80).
    @Test(arguments: [80, 100, 200])
    func rowsHeadingsAndTheBarSpanTheWindow(columns: Int) throws {
        let h = try Harness(rows: 24, columns: columns)
        #expect(h.grid.line(1).hasPrefix("   # Move Code Team") && h.grid.line(1).hasSuffix("Wins"))
        #expect(TextWidth.columns(of: h.grid.line(1)) == columns, "the headings end at the right edge")
        #expect(TextWidth.columns(of: h.grid.line(3)) == columns && h.grid.line(3).hasSuffix(" 0"), "so do the wins")
        #expect(
            (0..<columns).allSatisfy { h.grid.style(row: 3, column: $0).contains(.reverse) },
            "the bar spans the row")
        #expect((0..<columns).allSatisfy { !h.grid.style(row: 4, column: $0).contains(.reverse) })
    }
}
