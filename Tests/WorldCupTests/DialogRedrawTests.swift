import Foundation
import TerminalUI
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// The Add Team dialog drawn frame by frame (issue 22, bug 6): whatever the dialog's steps, the
/// screen equals a fresh draw of the same state, so no border or line of an older box stays.
@Suite struct DialogRedrawTests {
    typealias Harness = ScoreboardScreenTests.Harness

    /// Every difference between the harness's grid and a screen drawn from scratch in the same
    /// state (mode, message, cursor, scroll position), cell by cell with styles, and the
    /// hardware cursor; empty when they are equal.
    static func differencesFromAFreshDraw(_ h: Harness) throws -> [String] {
        let fresh = GridSurface(rows: h.grid.rows, columns: h.grid.columns)
        let screen = try ScoreboardScreen(store: h.store, surface: fresh, renderer: TeamRowRenderer(showsFlags: false))
        if h.screen.isShaken { _ = screen.handle(.character("S")) }
        screen.mode = h.screen.mode
        screen.message = h.screen.message
        // The session's news, which a fresh scoreboard has not seen: the movement marks and
        // the last change's time.
        (screen.movements, screen.lastChange) = (h.screen.movements, h.screen.lastChange)
        screen.tableView.setCursor(h.screen.tableView.cursor)
        screen.tableView.scroll(toLine: h.screen.tableView.scrollTop)
        screen.render()
        var differences: [String] = []
        for row in 0..<fresh.rows {
            if h.grid.line(row) != fresh.line(row) {
                differences.append("row \(row): drawn \"\(h.grid.line(row))\", fresh \"\(fresh.line(row))\"")
            } else if let column = (0..<fresh.columns).first(where: {
                h.grid.style(row: row, column: $0) != fresh.style(row: row, column: $0)
            }) {
                let drawn = h.grid.style(row: row, column: column), expected = fresh.style(row: row, column: column)
                differences.append("row \(row), column \(column): style \(drawn), fresh \(expected)")
            }
        }
        if h.grid.cursor != fresh.cursor || h.grid.isCursorVisible != fresh.isCursorVisible {
            differences.append(
                "hardware cursor \(h.grid.cursor) \(h.grid.isCursorVisible), "
                    + "fresh \(fresh.cursor) \(fresh.isCursorVisible)")
        }
        return differences
    }

    static func borderRows(_ h: Harness) -> (tops: Int, bottoms: Int) {
        (h.grid.lines.filter { $0.contains("┌") }.count, h.grid.lines.filter { $0.contains("└") }.count)
    }

    /// The two reports: at 80×24 an empty name refused, then a letter typed; at 100×40
    /// a duplicate name refused, then a letter typed.
    @Test func aProblemThatGoesAwayLeavesNoOldBorder() throws {
        let small = try Harness(rows: 24, columns: 80)
        small.press(.character("S"), .character("+"), .enter)
        #expect(small.grid.lines.contains { $0.contains("Team Name must not be empty.") })
        small.type("a")
        #expect(Self.borderRows(small) == (1, 1), "one box: \(small.grid.lines)")
        #expect(try Self.differencesFromAFreshDraw(small) == [])

        let large = try Harness(rows: 40, columns: 100)
        large.press(.character("S"), .character("+"))
        large.type("brazil")
        large.press(.tab)
        large.type("South America")
        large.press(.enter)
        #expect(large.grid.lines.contains { $0.contains("already exists") })
        large.press(.up)
        large.type("x")
        #expect(Self.borderRows(large) == (1, 1), "one box: \(large.grid.lines)")
        #expect(try Self.differencesFromAFreshDraw(large) == [])
    }

    /// Random dialog keys at several sizes (empty fields, duplicates, saves, cancels, wide
    /// characters, completion): after every key the screen equals a fresh draw.
    @Test func everyDialogStepEqualsAFreshDraw() throws {
        let seed: UInt64 = 22_06
        print("everyDialogStepEqualsAFreshDraw seed \(seed)")
        var random = SplitMix64(seed: seed)
        let keys: [Key] = [
            .character("a"), .character("B"), .character(" "), .character("日"), .character("é"),
            .backspace, .delete, .left, .right, .home, .end, .tab, .backTab, .up, .down, .enter,
            .control("u"), .control("k"), .control("w"), .escape,
        ]
        // Names that exist (refused by the store), and zone prefixes that complete.
        let texts = ["brazil", "Ghana", "South", "eu", "A much longer team name than any box is wide, to wrap"]
        for (rows, columns) in [(24, 80), (40, 100), (12, 40), (8, 30), (5, 20)] {
            let h = try Harness(rows: rows, columns: columns)
            h.press(.character("S"))
            for step in 0..<120 {
                if case .dialog = h.screen.mode {} else { h.press(.character("+")) }
                if Int.random(in: 0..<6, using: &random) == 0 {
                    h.type(texts.randomElement(using: &random)!)
                } else {
                    h.press(keys.randomElement(using: &random)!)
                }
                let differences = try Self.differencesFromAFreshDraw(h)
                let screen = h.grid.lines.joined(separator: "\n")
                try #require(differences.isEmpty, "\(rows)×\(columns), step \(step): \(differences)\n\(screen)")
            }
        }
    }
}
