import Foundation
import GRDB
import TerminalUI
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// What a scorekeeper and an organiser hit at the party (issue 44), on the in-memory grid:
/// undo's cursor, the Add Team dialog's traps, a very narrow and a very wide window, and the
/// highlight of others' changes.
@Suite struct PartyScreenTests {
    typealias Harness = ScoreboardScreenTests.Harness

    static func zone(of name: String, in store: TeamStore) throws -> String? {
        try store.pool.read { db in
            try String.fetchOne(db, sql: "SELECT qualifyingZone FROM team WHERE teamName = ?", arguments: [name])
        }
    }

    static func teamNames(_ store: TeamStore) throws -> Set<String> {
        try store.pool.read { db in Set(try String.fetchAll(db, sql: "SELECT teamName FROM team")) }
    }

    /// Issue 44, bug 7: `G k k`, add "Zed" in South America, `u`: the cursor stays where Zed
    /// was (its neighbour, the last team of South America), not at the top.
    @Test func undoOfAnAddedTeamLeavesTheCursorWhereTheTeamWas() throws {
        let h = try Harness()
        h.press(.character("G"), .character("k"), .character("k"))
        #expect(h.cursorLine.contains(" Colombia "), "\(h.cursorLine)")
        h.press(.character("S"), .character("+"))
        h.type("Zed")
        h.press(.tab)
        h.type("South America")
        h.press(.enter)
        #expect(h.cursorLine.contains(" Zed "), "the added team is selected: \(h.cursorLine)")
        h.press(.character("u"))
        #expect(h.grid.line(39).hasPrefix("Removed Zed. "), "\(h.grid.line(39))")
        #expect(h.cursorLine.contains(" Uruguay "), "the cursor stays where Zed was: \(h.cursorLine)")
        #expect(h.grid.line(39).hasSuffix(" 32 / 32"), "\(h.grid.line(39))")
        h.press(.enter)
        #expect(h.wins(of: "Uruguay") == 1, "Enter counts for the team the cursor is on")
    }

    /// The same when the undo removes the team's whole zone: the cursor goes to the team
    /// above it, not to the top.
    @Test func undoOfATeamInANewZoneLeavesTheCursorBesideThatZone() throws {
        let h = try Harness()
        try h.moveCursor(to: "Spain")
        h.press(.character("S"), .character("+"))
        h.type("Wenderland")
        h.press(.tab)
        h.type("Internets")
        h.press(.enter)
        #expect(h.cursorLine.contains(" Wenderland "))
        h.press(.character("u"))
        #expect(!h.grid.lines.contains("Internets (1 team)"))
        #expect(h.cursorLine.contains(" Switzerland "), "the last team of Europe, above: \(h.cursorLine)")
    }

    /// Issue 44, bug 8: Tab in the zone field with nothing to complete stays there, so the
    /// rest of the zone goes into the zone ("Wenderland", Tab, "int", Tab, "ernets", Enter).
    @Test func tabWithNothingToCompleteStaysInTheZoneField() throws {
        let h = try Harness()
        h.press(.character("S"), .character("+"))
        h.type("Wenderland")
        h.press(.tab)
        h.type("int")
        h.press(.tab)
        h.type("ernets")
        h.press(.enter)
        #expect(try Self.zone(of: "Wenderland", in: h.store) == "internets")
        #expect(try !Self.teamNames(h.store).contains("Wenderlandernets"))
    }

    /// Issue 44, bug 8: after a refused duplicate name the focus is in the name field, the
    /// field at fault: what is typed next corrects the name.
    @Test func aRefusedNameTakesTheFocusBackToTheNameField() throws {
        let h = try Harness()
        h.press(.character("S"), .character("+"))
        h.type("Brazil")
        h.press(.tab)
        h.type("South America")
        h.press(.enter)
        #expect(h.grid.lines.contains { $0.contains("A team named \"Brazil\" already exists") })
        h.type(" B")
        h.press(.enter)
        #expect(try Self.zone(of: "Brazil B", in: h.store) == "South America", "\(h.grid.lines)")
    }

    /// Issue 44, bug 9: in a narrow window the code and then the rank go before the wins:
    /// every team row still shows the name's start and its wins, the headings above them.
    @Test(arguments: [10, 12, 16, 20])
    func aNarrowWindowKeepsNamesAndWins(columns: Int) throws {
        let h = try Harness(rows: 24, columns: columns)
        h.press(.enter, .enter)  // Algeria: 2 wins
        // The title, the headings, Africa's header, then its teams.
        let algeria = h.grid.line(3), cameroon = h.grid.line(4)
        #expect(
            algeria.contains("Alg") && !algeria.contains("ALG"),
            "the name, not the code, at \(columns) columns: \(algeria.debugDescription)")
        #expect(algeria.hasSuffix(" 2"), "the wins at \(columns) columns: \(algeria.debugDescription)")
        #expect(TextWidth.columns(of: algeria) == columns)
        #expect(cameroon.contains("Cam") && cameroon.hasSuffix(" 0"), "\(cameroon.debugDescription)")
        let heading = h.grid.line(1)
        #expect(heading.contains("Team") && heading.hasSuffix("Wins"), "\(heading.debugDescription)")
    }

    /// The look (issue 44): a row another writer changed has a highlight of its own, not the
    /// zone headers' style, so it never looks like a header.
    @Test func aRowChangedByOthersDoesNotLookLikeAHeader() throws {
        let h = try Harness()
        let other = try DatabaseQueue(path: h.store.path)
        try other.write { db in try db.execute(sql: "UPDATE team SET wins = wins + 1 WHERE teamName = 'Ghana'") }
        h.driver.storeChanged()
        let ghana = try #require(h.row(of: "Ghana"))
        let header = try #require(h.grid.lines.firstIndex(of: "Africa (5 teams)"))
        let flash = h.grid.style(row: ghana, column: 8)
        #expect(flash != [], "highlighted")
        #expect(flash != h.grid.style(row: header, column: 0), "not as a header: \(flash)")
    }

    /// The look (issue 44): on a TV at 250 columns the wins are far from the names; every
    /// other team row is striped, so the eye follows a row from its name to its wins.
    @Test func aWideWindowStripesEveryOtherTeamRow() throws {
        let h = try Harness(rows: 60, columns: 250)
        h.press(.character("j"))  // the bar off the first rows
        let nigeria = try #require(h.row(of: "Nigeria")), ivoryCoast = try #require(h.row(of: "Ivory Coast"))
        let ghana = try #require(h.row(of: "Ghana"))
        let middle = 120
        #expect(h.grid.style(row: ghana, column: middle) != h.grid.style(row: ivoryCoast, column: middle))
        #expect(h.grid.style(row: ghana, column: middle) == h.grid.style(row: nigeria, column: middle))
    }
}
