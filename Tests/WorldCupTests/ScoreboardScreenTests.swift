import Foundation
import GRDB
import TerminalUI
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// The scoreboard drawn into an in-memory grid: what it shows and what each change redraws.
@Suite struct ScoreboardScreenTests {
    struct Harness {
        let directory = TemporaryDirectory()
        let store: TeamStore
        let driver: ScoreboardDriver
        var grid: GridSurface { driver.grid }
        var screen: ScoreboardScreen { driver.screen }

        init(rows: Int = 40, columns: Int = 80) throws {
            store = try Fixtures.seededStore(in: directory)
            driver = try ScoreboardDriver(store: store, rows: rows, columns: columns)
        }

        /// Sends keys through the scoreboard's program, as the loop does.
        func press(_ keys: Key...) { for key in keys { driver.press(key) } }

        func type(_ text: String) { driver.type(text) }

        /// The shake, then the Add Team dialog filled in and saved, as a person does it.
        func addSecretTeam(_ name: String, zone: String) {
            press(.character("S"), .character("+"))
            type(name)
            press(.tab)
            type(zone)
            press(.enter)
        }

        /// Moves the cursor down until it is on the named team.
        func moveCursor(to name: String) throws {
            press(.home)
            for _ in 0..<100 where !cursorLine.contains(" \(name) ") { press(.down) }
            try #require(cursorLine.contains(" \(name) "), "cursor reached \(name)")
        }

        var cursorLine: String {
            guard let row = screen.tableView.cursorScreenRow else { return "" }
            return grid.line(row)
        }

        func row(of name: String) -> Int? { grid.lines.firstIndex { $0.contains(" \(name) ") } }

        func wins(of name: String) -> Int? {
            row(of: name).flatMap { Int(grid.line($0).split(separator: " ").last ?? "") }
        }
    }

    @Test func showsTitleSectionsTeamsAndKeyHints() throws {
        let h = try Harness()
        #expect(h.grid.line(0) == "World Cup — 32 teams in 5 zones")
        #expect(h.grid.line(1).hasPrefix("   # Move Code Team") && h.grid.line(1).hasSuffix("Wins"), "column headings")
        #expect(h.grid.line(2) == "Africa (5 teams)")
        #expect(h.grid.line(3).hasPrefix("★  1      ALG  Algeria"), "all on 0 wins: all share 1st, all lead")
        #expect(h.grid.line(3).hasSuffix(" 0"))
        #expect(h.grid.line(8) == "Asia (4 teams)")
        #expect(h.grid.lines.contains("North, Central America & Caribbean (4 teams)"))
        #expect(
            h.grid.line(39).hasPrefix(
                "↑↓ move · Enter +1 win · / search · ] zone · "
                    + "u undo · ? help · q quit"))
        #expect(h.grid.line(39).hasSuffix("  1 / 32"), "where the cursor is; everything fits, so no ▲ or ▼")
        #expect(h.grid.style(row: 3, column: 0).contains(.reverse), "the cursor starts on the first team")
        #expect(h.grid.cursor.row == 3, "the hidden hardware cursor sits on the cursor row")
        #expect(!h.grid.isCursorVisible, "no notch in the highlight bar")
    }

    @Test func winWithoutReorderRedrawsExactlyOneRow() throws {
        let h = try Harness()
        h.grid.resetCounters()
        h.press(.enter)
        #expect(h.wins(of: "Algeria") == 1)
        // The other four teams of Africa, tied on 0 wins, went from a shared 1st to a shared
        // 2nd: their rows are drawn again, though the change set names Algeria only.
        #expect(h.grid.drawnRows.filter { (2..<39).contains($0) } == [3, 4, 5, 6, 7])
        #expect(h.grid.line(4).hasPrefix("   2      CMR  Cameroon"))
        h.grid.resetCounters()
        h.press(.enter)
        #expect(h.wins(of: "Algeria") == 2)
        #expect(h.screen.tableView.lastDrawnItemRows == 1, "no other rank changed")
        #expect(h.screen.tableView.lastDrawnHeaderRows == 0)
        // Row 0 is the title, whose last change time may have ticked on.
        #expect(h.grid.drawnRows.filter { (2..<39).contains($0) } == [3])
    }

    @Test func winThatMovesATeamUpKPlacesRedrawsAtMostKPlusOneRows() throws {
        let h = try Harness()
        try h.moveCursor(to: "Nigeria")  // last of five in Africa: one win moves it up 4 places
        h.grid.resetCounters()
        h.press(.enter)
        #expect(h.row(of: "Nigeria") == 3)
        #expect(h.cursorLine.contains("Nigeria"), "the cursor follows its team")
        #expect(h.screen.tableView.lastDrawnItemRows <= 5)
        #expect(h.screen.tableView.lastDrawnItemRows >= 2)
        #expect(h.grid.line(7).contains("Ivory Coast"))
        #expect(h.grid.line(7).hasPrefix("   2      CIV"), "the four teams on 0 wins share 2nd")
    }

    @Test func changeToATeamScrolledOffRedrawsNoTeamRow() throws {
        let h = try Harness(rows: 10, columns: 60)
        #expect(h.row(of: "Uruguay") == nil)
        h.grid.resetCounters()
        try h.store.addWins(to: "Uruguay", count: 3)  // from "another code path", like the tutorial's detail screen
        h.driver.storeChanged()
        #expect(h.screen.tableView.lastDrawnItemRows == 0)
        #expect(h.screen.tableView.lastDrawnHeaderRows == 0)
        try h.store.addTeam(name: "Wenderland", zone: "Internets")  // a whole new section, off screen
        h.driver.storeChanged()
        #expect(h.screen.tableView.lastDrawnItemRows == 0)
        #expect(h.grid.line(0).hasPrefix("World Cup — 33 teams in 6 zones · last change "))
    }

    @Test func secretTeamNeedsTheShakeAndLandsInANewSectionAfterEurope() throws {
        let h = try Harness()
        h.press(.character("+"))
        #expect(!h.grid.lines.contains { $0.contains("Secret Team") }, "+ before the shake does nothing")
        h.press(.character("S"), .character("+"))
        #expect(h.grid.lines.contains { $0.contains("Secret Team") })
        h.type("Wenderland")
        h.press(.tab)
        h.type("Internets")
        h.press(.enter)
        let lines = h.grid.lines
        let europe = try #require(lines.firstIndex(of: "Europe (13 teams)"))
        let internets = try #require(lines.firstIndex(of: "Internets (1 team)"))
        let north = try #require(lines.firstIndex(of: "North, Central America & Caribbean (4 teams)"))
        #expect(europe < internets && internets < north)
        #expect(lines[internets + 1].hasPrefix("★  1 NEW  WEN  Wenderland"))
        #expect(h.cursorLine.contains("Wenderland"))
        #expect(h.grid.line(39).hasPrefix("Added Wenderland. "))
        #expect(h.grid.line(0).hasPrefix("World Cup — 33 teams in 6 zones · last change "))
    }

    @Test func dialogRefusesEmptyAndDuplicateNamesAndEscCancels() throws {
        let h = try Harness()
        h.press(.character("S"), .character("+"), .enter)
        #expect(h.grid.lines.contains { $0.contains("Team Name must not be empty.") })
        h.type("brazil")
        h.press(.down)
        h.type("South America")
        h.press(.enter)
        #expect(h.grid.lines.contains { $0.contains("A team named \"Brazil\" already exists") })
        h.press(.escape)
        #expect(!h.grid.lines.contains { $0.contains("Secret Team") })
        #expect(try Fixtures.teamCount(h.store) == 32)
        #expect(h.grid.line(3).contains("Algeria"), "the list is back")
    }

    @Test func undoTakesBackWinsAndAddedTeams() throws {
        let h = try Harness()
        h.press(.enter, .enter)
        #expect(h.wins(of: "Algeria") == 2)
        h.press(.character("u"))
        #expect(h.wins(of: "Algeria") == 1)
        h.addSecretTeam("Wenderland", zone: "Internets")
        h.press(.character("u"))
        #expect(h.row(of: "Wenderland") == nil)
        #expect(!h.grid.lines.contains("Internets (1 team)"))
        h.press(.character("u"), .character("u"))
        #expect(h.wins(of: "Algeria") == 0)
        #expect(h.grid.line(39).hasPrefix("Nothing to undo. "))
    }

    /// Ctrl-R does again, step by step, what u took back (as in vim); a new change of this
    /// scoreboard starts a new line of changes, with nothing to redo.
    @Test func redoDoesAgainWhatUndoTookBack() throws {
        let h = try Harness()
        func storedWins(_ name: String) throws -> Int? {
            try h.store.pool.read { db in
                try Int.fetchOne(db, sql: "SELECT wins FROM team WHERE teamName = ?", arguments: [name])
            }
        }
        h.press(.enter, .enter, .enter, .character("u"), .character("u"))
        #expect(try storedWins("Algeria") == 1)
        h.press(.control("r"))
        #expect(try h.wins(of: "Algeria") == 2 && storedWins("Algeria") == 2)
        #expect(h.grid.line(39).hasPrefix("Counted the win for Algeria again. "), "\(h.grid.line(39))")
        h.press(.control("r"))
        #expect(try storedWins("Algeria") == 3)
        h.press(.control("r"))
        #expect(h.grid.line(39).hasPrefix("Nothing to redo. "), "\(h.grid.line(39))")
        #expect(try storedWins("Algeria") == 3)
        h.press(.character("u"), .character("u"), .character("u"))
        #expect(try storedWins("Algeria") == 0, "a redone win is undone like any other")

        h.press(.control("r"), .enter)
        #expect(try storedWins("Algeria") == 2)
        h.press(.control("r"))
        #expect(h.grid.line(39).hasPrefix("Nothing to redo. "), "a new win starts a new line of changes")

        h.addSecretTeam("Wenderland", zone: "Internets")
        h.press(.character("u"))
        #expect(h.row(of: "Wenderland") == nil)
        h.press(.control("r"))
        #expect(h.row(of: "Wenderland") != nil && h.grid.lines.contains("Internets (1 team)"))
        #expect(h.grid.line(39).hasPrefix("Added Wenderland again. "), "\(h.grid.line(39))")
        h.press(.character("u"))
        #expect(h.row(of: "Wenderland") == nil, "the team added again is removed again")

        // Someone else took the name meanwhile: their team stays, alone.
        try h.store.pool.write { db in
            try db.execute(sql: "INSERT INTO team (teamName, qualifyingZone, wins) VALUES ('Wenderland', 'Oceans', 4)")
        }
        h.driver.storeChanged()
        h.press(.control("r"))
        let status = (37...39).map(h.grid.line).joined(separator: " ")
        #expect(status.contains("Not redone: A team named \"Wenderland\" already exists"), "\(status)")
        #expect(try storedWins("Wenderland") == 4)
        #expect(try Fixtures.teamCount(h.store) == 33)
    }

    /// Undo takes back only what is still as this scoreboard left it (issue 12, bug 2): a
    /// team someone else renamed, or whose wins someone else took away or deleted, is kept
    /// as they left it, and the status line says so.
    @Test func undoRefusesWhatOthersChangedSince() throws {
        let h = try Harness()
        h.addSecretTeam("Wenderland", zone: "Internets")
        try h.store.pool.write { db in
            try db.execute(sql: "UPDATE team SET qualifyingZone = 'Oceans' WHERE teamName = 'Wenderland'")
        }
        h.driver.storeChanged()
        h.press(.character("u"))
        #expect(h.grid.line(39).hasPrefix("Not undone: Wenderland was changed elsewhere"), "\(h.grid.line(39))")
        #expect(try h.store.pool.read { db in try Team.filter(sql: "teamName = 'Wenderland'").fetchCount(db) } == 1)

        try h.moveCursor(to: "Algeria")
        h.press(.enter)
        try h.store.pool.write { db in try db.execute(sql: "UPDATE team SET wins = 0 WHERE teamName = 'Algeria'") }
        h.press(.character("u"))
        #expect(h.grid.line(39).hasPrefix("Not undone: Algeria has no win left"), "\(h.grid.line(39))")
        #expect(
            try h.store.pool.read { db in try Int.fetchOne(db, sql: "SELECT wins FROM team WHERE teamName = 'Algeria'")
            } == 0)

        try h.moveCursor(to: "Ghana")
        h.press(.enter)
        try h.store.pool.write { db in try db.execute(sql: "DELETE FROM team WHERE teamName = 'Ghana'") }
        h.press(.character("u"))
        #expect(h.grid.line(39).hasPrefix("Ghana is no longer in the store; nothing to undo. "))
        #expect(try Fixtures.teamCount(h.store) == 32)
    }

    @Test func helpListsTheVisibleKeysOnly() throws {
        let h = try Harness()
        h.press(.character("?"))
        // Only the box, not the dimmed list around it.
        let help = h.grid.lines.compactMap { line in
            line.firstRange(of: "│ ").map { String(line[$0.upperBound...].prefix { $0 != "│" }) }
        }.joined(separator: "\n")
        #expect(help.contains("add a win"))
        #expect(help.contains("click               select a team; on the selected one, add a win"))
        #expect(help.contains("the zone starting with it (again: the next)"))
        #expect(help.contains("quit"))
        #expect(!help.contains("add a team"), "the secret stays secret")
        #expect(!help.contains("S "))
        #expect(h.grid.line(3).contains("Algeria"), "the list stays visible around the box")
        #expect(h.grid.style(row: 3, column: 0) == [.dim], "dimmed under it")
        h.press(.character("x"))
        #expect(h.grid.line(3).contains("Algeria"))
        #expect(h.grid.style(row: 3, column: 0).contains(.reverse))
        h.press(.character("S"), .character("?"))
        #expect(h.grid.lines.contains { $0.contains("add a team") })
    }

    @Test func tinyAndResizedScreensDegradeWithoutCrashing() throws {
        let h = try Harness()
        for (rows, columns) in [(5, 20), (1, 1), (2, 5), (3, 12), (40, 100)] {
            h.grid.resize(rows: rows, columns: columns)
            h.press(.resize, .down, .enter, .pageDown, .end, .up)
            #expect(h.grid.lines.count == rows)
        }
        #expect(h.grid.line(0).hasPrefix("World Cup — 32 teams in 5 zones · last change "))
    }

    /// As in htop and lazygit (issue 22): a click selects a team; a click on the selected team
    /// (so also the second click of a double click) adds its win.
    @Test func aClickSelectsAndAClickOnTheSelectedTeamAddsAWin() throws {
        let h = try Harness()
        let ghana = try #require(h.row(of: "Ghana"))
        h.press(.mouseClick(row: ghana, column: 10))
        #expect(h.cursorLine.contains("Ghana"), "the click selects Ghana")
        #expect(h.wins(of: "Ghana") == 0, "and counts nothing")
        h.press(.mouseClick(row: ghana, column: 30))
        #expect(h.wins(of: "Ghana") == 1, "a click on the selected team adds its win")
        #expect(h.cursorLine.contains("Ghana"), "the cursor follows it as it climbs")
        let nigeria = try #require(h.row(of: "Nigeria"))
        h.press(.mouseClick(row: nigeria, column: 5), .mouseClick(row: nigeria, column: 5))
        #expect(h.wins(of: "Nigeria") == 1, "a double click on another team: selected, then one win")
        h.press(.mouseClick(row: 2, column: 3))  // a section header: nothing happens
        #expect(try h.store.teamsInStandingsOrder().map(\.wins).reduce(0, +) == 2)
        #expect(h.cursorLine.contains("Nigeria"))
    }

    @Test func flagsAreOptInAndShortCodesTheDefault() throws {
        let brazil = Team(teamName: "Brazil", qualifyingZone: "South America", imageName: "brazil-flag", wins: 5)
        let wenderland = Team(
            teamName: "Wenderland", qualifyingZone: "Internets", imageName: Team.addedTeamImageName, wins: 0)
        let plain = TeamRowRenderer(showsFlags: false), flags = TeamRowRenderer(showsFlags: true)
        #expect(plain.text(for: brazil, rank: 1, rankColumns: 2, width: 40).hasPrefix("★  1      BRA  Brazil"))
        #expect(flags.text(for: brazil, rank: 1, rankColumns: 2, width: 40).hasPrefix("★  1      🇧🇷   Brazil"))
        #expect(
            plain.text(for: wenderland, rank: 12, rankColumns: 3, width: 40).hasPrefix("   12      WEN  Wenderland"))
        #expect(
            plain.text(for: brazil, rank: 3, movement: .up(2), rankColumns: 2, width: 40).hasPrefix(
                "   3 ▲2   BRA  Brazil"))
        for width in [20, 40, 64, 100, 200] {
            // The wins sit at the terminal's right edge, under their heading, at any width.
            let row = flags.text(for: brazil, rank: 1, rankColumns: 2, width: width)
            #expect(TextWidth.columns(of: row) == width)
            #expect(TextWidth.columns(of: flags.heading(rankColumns: 2, width: width)) == width)
            #expect(row.hasSuffix(" 5") && flags.heading(rankColumns: 2, width: width).hasSuffix(" Wins"))
        }
        #expect(plain.heading(rankColumns: 2, width: 40).hasPrefix("   # Move Code Team"))
        #expect(
            Thousands.grouped(1_000_032) == "1,000,032" && Thousands.grouped(999) == "999"
                && Thousands.grouped(1000) == "1,000")
    }

    @Test func scrollingKeepsTheSectionHeaderOfTheTopRowVisible() throws {
        let h = try Harness(rows: 8, columns: 60)
        try h.moveCursor(to: "Switzerland")
        #expect(h.grid.line(2) == "Europe (13 teams)", "sticky header above the scrolled rows, under the headings")
        #expect(h.cursorLine.contains("Switzerland"))
    }

    /// Random keys, text and resizes into the whole screen (with the dialog): it never crashes,
    /// every drawn row fits the width, and the store stays consistent with what was added.
    @Test func randomKeysNeverBreakTheScreen() throws {
        let seed: UInt64 = 777
        print("randomKeysNeverBreakTheScreen seed \(seed)")
        var random = SplitMix64(seed: seed)
        let h = try Harness(rows: 12, columns: 40)
        let keys: [Key] = [
            .up, .down, .pageUp, .pageDown, .home, .end, .enter, .character(" "), .character("u"),
            .character("?"), .character("S"), .character("+"), .tab, .backTab, .escape, .backspace,
            .delete, .left, .right, .control("u"), .character("x"), .character("日"), .character("É"),
            .wheelUp, .wheelDown, .mouseClick(row: 3, column: 5), .character("q"), .control("c"),
        ]
        for _ in 0..<20_000 {
            if Int.random(in: 0..<200, using: &random) == 0 {
                h.grid.resize(
                    rows: Int.random(in: 1...30, using: &random), columns: Int.random(in: 1...90, using: &random))
                h.press(.resize)
            }
            h.press(keys.randomElement(using: &random)!)
            for row in 0..<h.grid.rows {
                try #require(TextWidth.columns(of: h.grid.line(row)) <= h.grid.columns)
            }
        }
        let teams = try h.store.teamsInStandingsOrder()
        #expect(teams.allSatisfy { $0.wins >= 0 && !$0.teamName.isEmpty })
        #expect(Set(teams.map { NoCase.key($0.teamName) }).count == teams.count)
    }

    /// The oracle for minimal redraws: after every random change, the grid that was updated
    /// row by row must equal the grid of a screen drawn from scratch on the same store.
    @Test func incrementalRedrawsAlwaysEqualAFreshDraw() throws {
        let seed: UInt64 = 4242
        print("incrementalRedrawsAlwaysEqualAFreshDraw seed \(seed)")
        var random = SplitMix64(seed: seed)
        let h = try Harness(rows: 14, columns: 50)
        var added = 0
        for step in 0..<300 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0...3: h.press(.enter)
            case 4: h.press(.down, .down)
            case 5: h.press(.up)
            case 6: h.press(.pageDown)
            case 7:
                let teams = try h.store.teamsInStandingsOrder()
                try h.store.addWins(
                    to: teams.randomElement(using: &random)!.teamName, count: Int.random(in: 1...3, using: &random))
                // As the scoreboard's own writes: not highlighted, which a fresh draw cannot know.
                h.screen.followOwnWrite()
                h.screen.render()
            case 8:
                added += 1
                try h.store.addTeam(
                    name: "Team \(added)",
                    zone: ["Europe", "Internets", "Atlantis", "asia"].randomElement(using: &random)!)
                // As the scoreboard's own writes: not highlighted, which a fresh draw cannot know.
                h.screen.followOwnWrite()
                h.screen.render()
            default:
                let teams = try h.store.teamsInStandingsOrder()
                _ = try h.store.removeTeam(named: teams.randomElement(using: &random)!.teamName)
                // As the scoreboard's own writes: not highlighted, which a fresh draw cannot know.
                h.screen.followOwnWrite()
                h.screen.render()
            }
            let fresh = GridSurface(rows: 14, columns: 50)
            let freshScreen = try ScoreboardScreen(
                store: h.store, surface: fresh, renderer: TeamRowRenderer(showsFlags: false))
            freshScreen.tableView.setCursor(h.screen.tableView.cursor)
            // The session's news, which a fresh scoreboard has not seen: the movement marks and
            // the last change's time.
            (freshScreen.movements, freshScreen.lastChange) = (h.screen.movements, h.screen.lastChange)
            freshScreen.tableView.scroll(toLine: h.screen.tableView.scrollTop)
            freshScreen.render()
            let band = h.screen.tableView.top..<(h.screen.tableView.top + h.screen.tableView.height)
            for row in band {
                try #require(
                    h.grid.line(row) == fresh.line(row),
                    "step \(step), row \(row): drawn \"\(h.grid.line(row))\", fresh \"\(fresh.line(row))\"")
                try #require(
                    h.grid.style(row: row, column: 0) == fresh.style(row: row, column: 0),
                    "step \(step), row \(row): style")
            }
        }
    }

}

/// The habits of terminal tools: search, zone jumps, pages, where-am-I, the dialog's line keys.
@Suite struct ScoreboardNavigationTests {
    typealias Harness = ScoreboardScreenTests.Harness

    /// The teams whose names contain `text` (ASCII case ignored), in list order: the oracle.
    func matches(_ text: String, in h: Harness) throws -> [String] {
        try h.store.teamsInStandingsOrder().map(\.teamName).filter { NoCase.key($0).contains(NoCase.key(text)) }
    }

    @Test func incrementalSearchWithNextPreviousAndEscape() throws {
        let h = try Harness()
        try h.moveCursor(to: "Brazil")
        let expected = try matches("an", in: h)
        try #require(expected.count >= 3)
        h.press(.character("/"), .character("a"))
        h.type("N")  // case does not matter
        // Brazil is in the last zone, after every "an": the search goes round to the top.
        #expect(h.cursorLine.contains(" \(expected[0]) "), "the cursor jumps to the first match from it as it is typed")
        #expect(h.grid.line(39).hasPrefix("/aN  — 1 of \(expected.count)"), "\(h.grid.line(39))")
        #expect(h.grid.isCursorVisible, "the cursor shows in the search line")
        h.press(.escape)
        #expect(h.cursorLine.contains(" Brazil "), "Esc returns to where the search started")

        h.press(.character("/"))
        h.type("an")
        h.press(.enter)
        #expect(h.cursorLine.contains(" \(expected[0]) "))
        h.press(.character("n"))
        #expect(h.cursorLine.contains(" \(expected[1]) "))
        #expect(h.grid.line(39).hasPrefix("/an — 2 of \(expected.count)"))
        h.press(.character("N"), .character("N"))
        #expect(h.cursorLine.contains(" \(expected.last!) "), "N before the first match wraps to the last")
        #expect(h.grid.line(39).contains("search hit TOP, continuing at BOTTOM"))

        h.press(.character("/"))
        h.type("zzz")
        #expect(h.grid.line(39).hasPrefix("/zzz  — no match"))
        h.press(.enter)
        #expect(h.cursorLine.contains(" \(expected.last!) "), "no match: the cursor stays")
        // LIKE's wildcards are plain text here.
        h.press(.character("/"), .character("%"), .enter)
        #expect(h.cursorLine.contains(" \(expected.last!) "))
    }

    @Test func zoneJumpsByStepAndByIndexLetter() throws {
        let h = try Harness(rows: 12, columns: 80)
        h.press(.character("]"))
        #expect(h.cursorLine.contains(" Australia "))
        #expect(h.grid.line(2) == "Asia (4 teams)", "the zone's header at the top")
        h.press(.tab, .tab)
        #expect(h.cursorLine.contains(" Costa Rica "))
        h.press(.character("["))
        #expect(h.cursorLine.contains(" Belgium "))
        h.press(.backTab, .backTab, .backTab)
        #expect(h.cursorLine.contains(" Argentina "), "before the first zone comes the last")
        h.press(.character("'"))
        #expect(h.grid.line(11).hasPrefix("Zone by its first letter: A E N S"), "\(h.grid.line(11))")
        h.press(.character("e"))
        #expect(h.cursorLine.contains(" Belgium "))
        h.press(.character("'"), .character("x"))
        #expect(h.grid.line(11).hasPrefix("No zone starts with X"))
        #expect(h.cursorLine.contains(" Belgium "))
        // The same letter again goes on to the next zone starting with it, as in file managers.
        h.press(.character("'"), .character("a"))
        #expect(h.cursorLine.contains(" Algeria "), "from Europe: the first A zone after it, round the end")
        h.press(.character("'"), .character("a"))
        #expect(h.cursorLine.contains(" Australia "), "again: Asia")
        h.press(.character("'"), .character("A"))
        #expect(h.cursorLine.contains(" Algeria "), "and round to Africa")
        h.press(.character("'"), .character("s"), .character("'"), .character("s"))
        #expect(h.cursorLine.contains(" Argentina "), "the only S zone, again")
    }

    @Test func pagesHalfPagesAndThePositionIndicator() throws {
        let h = try Harness(rows: 12, columns: 60)
        #expect(h.grid.line(11).hasSuffix(" ▼ 1 / 32"))
        h.press(.control("d"))
        #expect(h.grid.line(11).hasSuffix(" 5 / 32"), "half a page of eight rows: four teams on")
        h.press(.control("f"))
        #expect(h.grid.line(11).hasSuffix("▲▼ 12 / 32"), "a page: the band's nine rows less two")
        h.press(.control("b"), .control("u"))
        #expect(h.grid.line(11).hasSuffix(" 1 / 32"))
        h.press(.end)
        #expect(h.grid.line(11).hasSuffix("▲  32 / 32"))
    }

    @Test func suspendAndRepaintAreTheEventLoopsToDo() throws {
        let h = try Harness()
        #expect(h.screen.handle(.control("z")) == .suspend)
        #expect(h.screen.handle(.control("l")) == .repaint)
        #expect(h.screen.handle(.control("c")) == .quit(.quit))
    }

    @Test func enterDoesNothingToATeamThatIsNotVisible() throws {
        let h = try Harness()
        h.grid.resize(rows: 2, columns: 30)
        h.press(.resize)
        #expect(h.grid.line(0).contains(" Algeria "), "two rows: the selected team and the status line")
        h.grid.resize(rows: 1, columns: 30)
        h.press(.resize)
        #expect(h.screen.tableView.cursorScreenRow == nil, "one row: no room for the list")
        h.press(.enter, .character(" "))
        #expect(try h.store.teamsInStandingsOrder().allSatisfy { $0.wins == 0 })
    }

    @Test func dialogKeysCompletionAndProblemsThatGoAwayWhenFixed() throws {
        let h = try Harness(rows: 24, columns: 40)
        h.press(.character("S"))
        #expect(h.grid.line(23).hasPrefix("Shaken: + now adds a team."))
        h.press(.character("+"), .enter)
        #expect(h.grid.lines.contains { $0.contains("Team Name must not be empty.") })
        h.type("Brazil")
        #expect(!h.grid.lines.contains { $0.contains("must not be empty") }, "a fixed problem goes away")
        h.press(.tab)
        h.type("sou")
        #expect(h.grid.lines.contains { $0.contains("Qualifying Zone: sou") })
        h.press(.tab)
        #expect(
            h.grid.lines.contains { $0.contains("Qualifying Zone: South America") }, "Tab completes an existing zone")
        h.press(.enter)
        // The store's refusal is longer than the box: it wraps instead of being cut.
        let problem = h.grid.lines.compactMap { line in
            line.firstRange(of: "│ ").map {
                String(line[$0.upperBound...].prefix { $0 != "│" }).trimmingCharacters(in: .whitespaces)
            }
        }.drop { !$0.hasPrefix("A team named") }.prefix { !$0.isEmpty }.joined(separator: " ")
        #expect(problem.hasPrefix("A team named \"Brazil\" already exists") && problem.hasSuffix("."), "\(problem)")
        #expect(!h.grid.lines.contains { $0.contains("…") && $0.contains("│") }, "nothing cut in the box")
        h.press(.control("c"))
        #expect(!h.grid.lines.contains { $0.contains("Secret Team") }, "Ctrl-C cancels the dialog")
        #expect(try Fixtures.teamCount(h.store) == 32)
        #expect(h.screen.handle(.character("q")) == .quit(.quit), "and only the dialog")
    }

    @Test func rowsChangedByOthersAreHighlightedForAMoment() throws {
        let h = try Harness()
        let other = try DatabaseQueue(path: h.store.path)  // another writer, as another process would be
        try other.write { db in try db.execute(sql: "UPDATE team SET wins = wins + 1 WHERE teamName = 'Ghana'") }
        h.driver.storeChanged()
        let ghana = try #require(h.row(of: "Ghana"))
        #expect(h.grid.style(row: ghana, column: 8).contains(.flash))
        let expiry = try #require(h.screen.nextHighlightExpiry)
        #expect(h.driver.program.nextWake(at: h.driver.now).map { $0 <= expiry } == true, "the loop wakes for it")
        h.driver.advance(by: .milliseconds(1400))
        #expect(h.grid.style(row: ghana, column: 8).contains(.flash), "still highlighted a moment later")
        h.driver.advance(by: .milliseconds(200))
        #expect(!h.grid.style(row: ghana, column: 8).contains(.flash), "the highlight ends")
        h.press(.enter)
        #expect(h.screen.nextHighlightExpiry == nil, "this scoreboard's own wins are not highlighted")
    }
}
