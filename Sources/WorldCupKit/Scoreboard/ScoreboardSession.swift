import Foundation
import TerminalUI

/// Runs the scoreboard in the real terminal until the user quits.
public enum ScoreboardSession {
    /// - Parameters:
    ///   - crashKey: for testing terminal restoration only: pressing this key makes the program
    ///     trap, as a bug would.
    ///   - commitLog: for testing crash consistency only: a file that gets one line per
    ///     committed win, written right after the commit.
    public static func run(
        store: TeamStore, showsFlags: Bool, colors: Bool, crashKey: Character? = nil, commitLog: String? = nil
    ) throws {
        let terminal = try CursesTerminal.start(colors: colors)
        defer { terminal.stop() }
        let screen = try ScoreboardScreen(store: store, surface: terminal, renderer: TeamRowRenderer(showsFlags: showsFlags))
        if let commitLog, let log = FileHandle(forWritingAtPath: commitLog) ?? {
            FileManager.default.createFile(atPath: commitLog, contents: nil)
            return FileHandle(forWritingAtPath: commitLog)
        }() {
            log.seekToEndOfFile()
            screen.didCommitWin = { team in log.write(Data("\(team.teamName)\n".utf8)) }
        }
        screen.render()
        while true {
            // Wait for keys without waking up, except to checkpoint once after writes.
            let timeout: Int32 = screen.writesSinceCheckpoint > 0 ? 1000 : -1
            guard let key = terminal.readKey(timeoutMilliseconds: timeout) else {
                screen.checkpointIfNeeded()
                continue
            }
            if let crashKey, key == .character(crashKey) {
                fatalError("crash requested by the test key")
            }
            if key == .resize { terminal.invalidate() }
            guard screen.handle(key) else { return }
            if screen.writesSinceCheckpoint >= 1000 { screen.checkpointIfNeeded() }
            screen.render()
        }
    }
}
