import Foundation
import TestSupport
import Testing

/// Screen-reader mode in a real terminal (tmux): the hardware cursor shown on the selected row,
/// which is marked with `>`, and another program's win said on the status line.
@Suite struct ScreenReaderEndToEndTests {
    /// The selected row as tmux sees it: the cursor's row, which must start with the mark.
    static func cursorRow(_ terminal: Tmux) -> (row: Int, line: String)? {
        guard let row = Int(terminal.paneValue("cursor_y")), terminal.paneValue("cursor_x") == "0" else { return nil }
        let lines = terminal.lines
        return row < lines.count ? (row, lines[row]) : nil
    }

    @Test(arguments: ["--screen-reader", "WORLDCUP_SCREEN_READER=1"])
    func theCursorIsOnTheMarkedRowAndOthersWinsAreSaid(_ how: String) throws {
        let directory = TemporaryDirectory()
        let command =
            how.hasPrefix("--") ? directory.scoreboard + " " + how : "env \(how) " + directory.scoreboard
        let terminal = try Tmux(command: command)
        #expect(terminal.waitFor("World Cup — 32 teams in 5 zones"))
        try terminal.press("Down", "Down")
        #expect(terminal.wait { _ in Self.cursorRow(terminal)?.line.contains(" Ghana ") == true }, "\(terminal.lines)")
        #expect(terminal.isCursorVisible)
        let marked = terminal.lines.filter { $0.hasPrefix(">") }
        #expect(marked.count == 1 && marked[0].contains(" Ghana "), "\(marked)")

        let won = try WorldCupProcess.run(["win", "Nigeria", "--count", "2", "--db", directory.store])
        #expect(won.status == 0, "\(won.stderr)")
        // Every team of Africa had no win: all shared 1st, as Nigeria still is.
        #expect(terminal.waitFor("Nigeria +2 → 2 wins, still 1st in Africa"), "\(terminal.statusLine)")
        try terminal.press("q")
        #expect(terminal.waitUntil(timeout: 5) { terminal.commandExited })
    }
}
