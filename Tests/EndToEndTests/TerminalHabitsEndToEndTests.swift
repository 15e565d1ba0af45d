import Foundation
import GRDB
import TestSupport
import Testing

/// The habits of htop, less and vim, in a real terminal (tmux).
@Suite(.serialized) struct TerminalHabitsEndToEndTests {
    /// An interactive shell with job control, as a user has.
    static func shell() throws -> Tmux {
        try Tmux(command: "PS1='prompt$ ' exec bash --norc --noprofile -i")
    }

    @Test func ctrlZSuspendsAndFgRedrawsEverything() throws {
        let directory = TemporaryDirectory()
        let terminal = try Self.shell()
        #expect(terminal.waitFor("prompt$"))
        try terminal.type(directory.scoreboard)
        try terminal.press("Enter")
        #expect(terminal.waitFor("World Cup — 32 teams"))
        #expect(!terminal.isCursorVisible, "the cursor is hidden over the list")

        try terminal.press("C-z")
        #expect(terminal.waitFor("Stopped"), "the shell reports the stopped job")
        #expect(terminal.wait { $0.last { !$0.isEmpty } == "prompt$" }, "and its prompt is back")
        #expect(terminal.paneValue("alternate_on") == "0", "full-screen mode left")
        #expect(terminal.isCursorVisible)

        try terminal.type("fg")
        try terminal.press("Enter")
        #expect(terminal.waitFor("World Cup — 32 teams"), "fg redraws everything")
        #expect(terminal.waitFor("Africa (5 teams)"))
        #expect(terminal.wait { _ in terminal.cursorLine?.contains(" Algeria ") == true })
        try terminal.press("Enter")
        #expect(terminal.wait { _ in terminal.wins(of: "Algeria") == 1 }, "and keys work again")
        try terminal.press("q")
        #expect(terminal.wait { $0.last { !$0.isEmpty } == "prompt$" })
    }

    @Test func ctrlLRepaintsAScreenSomethingElseWroteOver() throws {
        let directory = TemporaryDirectory()
        let terminal = try Tmux(command: directory.scoreboard)
        #expect(terminal.waitFor("World Cup — 32 teams"))
        // Another program writes straight to the terminal, over the list.
        let tty = terminal.paneValue("pane_tty")
        try Data("\u{1B}[5;1HGARBAGE GARBAGE GARBAGE".utf8).write(to: URL(fileURLWithPath: tty))
        #expect(terminal.waitFor("GARBAGE"))
        try terminal.press("C-l")
        #expect(terminal.wait { !$0.contains { $0.contains("GARBAGE") } })
        #expect(terminal.waitFor("★  1      CMR  Cameroon"))
    }

    @Test func searchZonesAndBoxesInARealTerminal() throws {
        let directory = TemporaryDirectory()
        let terminal = try Tmux(command: directory.scoreboard)
        #expect(terminal.waitFor("World Cup — 32 teams"))

        try terminal.press("/")
        try terminal.type("an")
        #expect(terminal.wait { $0.last { !$0.isEmpty }?.hasPrefix("/an  — 1 of ") == true }, "\(terminal.lines)")
        #expect(terminal.isCursorVisible, "the cursor shows where the search is typed")
        #expect(terminal.cursorLine?.contains(" Ghana ") == true, "the first team whose name contains it")
        try terminal.press("Enter", "n")
        #expect(terminal.wait { _ in terminal.cursorLine?.contains(" Iran ") == true })
        #expect(terminal.wait { $0.last { !$0.isEmpty }?.hasPrefix("/an — 2 of ") == true })
        try terminal.press("N")
        #expect(terminal.wait { _ in terminal.cursorLine?.contains(" Ghana ") == true })

        try terminal.press("]")
        #expect(terminal.wait { _ in terminal.cursorLine?.contains(" Australia ") == true })
        try terminal.press("'", "s")
        #expect(terminal.wait { _ in terminal.cursorLine?.contains(" Argentina ") == true })
        try terminal.press("BTab")
        #expect(terminal.wait { _ in terminal.cursorLine?.contains(" Costa Rica ") == true })

        // Help: a box over the list, which stays visible around it.
        try terminal.press("?")
        #expect(terminal.waitFor("┌"))
        let lines = terminal.lines
        #expect(lines.contains { $0.contains("│ Keys") })
        #expect(lines.contains { $0.hasPrefix("World Cup — 32 teams") })
        #expect(!terminal.isCursorVisible)
        try terminal.press("x")
        #expect(terminal.wait { !$0.contains { $0.contains("┌") } })

        // The dialog: a box with the cursor in its field.
        try terminal.press("S", "+")
        #expect(terminal.waitFor("│ Secret Team"))
        #expect(terminal.wait { _ in terminal.isCursorVisible })
        try terminal.press("C-c")
        #expect(terminal.wait { !$0.contains { $0.contains("Secret Team") } })
        #expect(!terminal.commandExited, "Ctrl-C in the dialog cancels it")
        #expect(!terminal.isCursorVisible)
    }

    /// Issue 22, bug 2: at 100×40, G, then 60×15: the highlight bar stays on the last team and
    /// Enter counts for it.
    @Test func shrinkingTheWindowKeepsTheSelectedTeamOnScreen() throws {
        let directory = TemporaryDirectory()
        let terminal = try Tmux(width: 100, height: 40, command: directory.scoreboard)
        #expect(terminal.waitFor("World Cup — 32 teams"))
        try terminal.press("G")
        #expect(terminal.wait { _ in terminal.cursorLine?.contains(" Uruguay ") == true })
        try terminal.resize(width: 60, height: 15)
        // Redrawn at the new size: the title on the first row (tmux keeps the old bottom rows
        // until the program draws).
        #expect(terminal.wait { $0.first == "World Cup — 32 teams in 5 zones" }, "\(terminal.lines)")
        #expect(terminal.wait { _ in terminal.cursorLine?.contains(" Uruguay ") == true }, "\(terminal.lines)")
        try terminal.press("Enter")
        let uruguay = {
            try DatabaseQueue(path: directory.store).read { db in
                try Int.fetchOne(db, sql: "SELECT wins FROM team WHERE teamName = 'Uruguay'")
            }
        }
        #expect(terminal.waitUntil(timeout: 10) { (try? uruguay()) == 1 }, "Enter counted for the team on screen")
        let total = try DatabaseQueue(path: directory.store).read { db in
            try Int.fetchOne(db, sql: "SELECT sum(wins) FROM team")
        }
        #expect(total == 1)
    }

    /// Issue 22: a click selects, as in htop and lazygit; a click on the selected team adds its
    /// win. The clicks are the terminal's own mouse reports (X10 encoding: press, release).
    @Test func aClickSelectsAndAClickOnTheSelectedTeamAddsAWin() throws {
        let directory = TemporaryDirectory()
        let terminal = try Tmux(command: directory.scoreboard)
        #expect(terminal.waitFor("World Cup — 32 teams"))
        func click(row: Int, column: Int) throws {
            let report = { (button: Int) in [0x1B, 0x5B, 0x4D, 32 + button, 33 + column, 33 + row] }
            let bytes = (report(0) + report(3)).map { String($0, radix: 16) }
            try Tmux.tmux(["send-keys", "-t", terminal.session, "-H"] + bytes)
        }
        let wins = {
            try DatabaseQueue(path: directory.store).read { db in
                try Int.fetchOne(db, sql: "SELECT wins FROM team WHERE teamName = 'Ghana'")
            }
        }
        let ghana = try #require(terminal.lines.firstIndex { $0.contains(" Ghana ") })
        try click(row: ghana, column: 12)
        #expect(terminal.wait { _ in terminal.cursorLine?.contains(" Ghana ") == true }, "the click selects Ghana")
        usleep(300_000)
        #expect(try wins() == 0, "and counts nothing")
        try click(row: ghana, column: 40)
        #expect(terminal.waitUntil(timeout: 10) { (try? wins()) == 1 }, "a click on the selected team adds its win")
        #expect(terminal.wait { _ in terminal.cursorLine?.contains(" Ghana ") == true })
    }

    @Test func enterOnATinyScreenDoesNothingToATeamNotShown() throws {
        let directory = TemporaryDirectory()
        let terminal = try Tmux(command: directory.scoreboard)
        #expect(terminal.waitFor("World Cup — 32 teams"))
        // One row: no room for the list, so no team is selected on screen (from two rows on,
        // the selected team is shown and Enter counts for it).
        try terminal.resize(width: 30, height: 1)
        usleep(300_000)
        try terminal.press("Enter", "Space")
        usleep(300_000)
        try terminal.resize(width: 100, height: 40)
        #expect(terminal.waitFor("Africa (5 teams)"))
        let wins = try DatabaseQueue(path: directory.store).read { db in
            try Int.fetchOne(db, sql: "SELECT sum(wins) FROM team")
        }
        #expect(wins == 0, "no team won")
        #expect(!terminal.commandExited)
    }
}

/// The README's screenshots come from scripts; they must keep working.
@Suite struct ScreenshotScriptTests {
    @Test func theScriptRendersEachScreen() throws {
        let output = TemporaryDirectory()
        // Through system(), not Process: the script starts a tmux server, which would keep
        // Process's exit-watching descriptor open (see Tmux.tmux).
        let script = WorldCupProcess.packageRoot.appendingPathComponent("docs/screenshots.sh").path
        let status = system("'\(script)' '\(WorldCupProcess.binary)' '\(output.path)' </dev/null >/dev/null 2>&1")
        try #require(status == 0)
        func shot(_ name: String) throws -> [String] {
            try String(contentsOfFile: output.path + "/\(name).txt", encoding: .utf8).split(separator: "\n").map(
                String.init)
        }
        #expect(try shot("list").first == "World Cup — 32 teams in 5 zones")
        #expect(try shot("list").contains { $0.hasPrefix("★  1      GER  Germany") && $0.hasSuffix(" 7") })
        #expect(try shot("search").last?.hasPrefix("/an  — 1 of ") == true)
        #expect(try shot("help").contains { $0.contains("│ Keys") })
        #expect(try shot("dialog").contains { $0.contains("Qualifying Zone: North, Central America & Caribbean") })
        // Italy's five wins from another terminal, 5th to a 2nd shared with the Netherlands.
        #expect(try shot("movement").contains { $0.hasPrefix("   2 ▲3   ITA  Italy") && $0.hasSuffix(" 5") })
        #expect(try shot("movement").contains { $0.hasPrefix("   2      NED  Netherlands") })
        #expect(try shot("movement").first?.contains(#/ · last change \d\d:\d\d:\d\d$/#) == true)
        // "ger": Algeria and Nigeria in Africa, Germany in Europe; no ranks in a filtered list.
        #expect(
            try shot("filter").first?.hasPrefix("World Cup — 3 of 32 teams in 2 zones · names containing “ger”") == true
        )
        #expect(try shot("filter").filter { $0.hasPrefix("          ") }.count == 3)
        // Ghana, selected, climbs to a 2nd of its own behind Algeria: marked, and said.
        #expect(try shot("screen-reader").contains { $0.hasPrefix(">  2      GHA  Ghana") && $0.hasSuffix(" 1") })
        #expect(try shot("screen-reader").last?.hasPrefix("Ghana +1 → 1 win, still 2nd in Africa") == true)
    }
}
