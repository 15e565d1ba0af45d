import Foundation
import TerminalUI

/// Runs the scoreboard in the real terminal until the user quits.
public enum ScoreboardSession {
    /// How often an idle scoreboard looks for changes made by other processes.
    static let tickMilliseconds: Int32 = 100

    /// - Parameters:
    ///   - crashKey: for testing terminal restoration only: pressing this key makes the program
    ///     trap, as a bug would.
    ///   - commitLog: for testing crash consistency only: a file that gets one line per
    ///     committed win, written right after the commit.
    public static func run(
        store: TeamStore, showsFlags: Bool, colors: Bool, cacheDirectory: String? = nil, stats: SessionStats? = nil,
        crashKey: Character? = nil, commitLog: String? = nil
    ) throws {
        defer { stats?.write() }
        let terminal = try CursesTerminal.start(colors: colors)
        defer { terminal.stop() }
        let screen = try ScoreboardScreen(
            store: store, surface: terminal, renderer: TeamRowRenderer(showsFlags: showsFlags), cacheDirectory: cacheDirectory)
        defer { screen.saveCacheIfNeeded() }
        if let commitLog {
            if !FileManager.default.fileExists(atPath: commitLog) {
                _ = FileManager.default.createFile(atPath: commitLog, contents: nil)  // opening it below checks
            }
        }
        if let commitLog, let log = FileHandle(forWritingAtPath: commitLog) {
            log.seekToEndOfFile()
            screen.didCommitWin = { team in log.write(Data("\(team.teamName)\n".utf8)) }
        }
        screen.render()
        stats?.firstFrameShown(fetchSource: screen.fetchSource)
        var idleTicks = 0
        while true {
            // Between keys, look for other processes' commits every tick (one indexed query),
            // and checkpoint once writes have rested for a second.
            guard let key = terminal.readKey(timeoutMilliseconds: Self.tickMilliseconds) else {
                if screen.showExternalChanges() { screen.render() }
                idleTicks += 1
                if idleTicks * Int(Self.tickMilliseconds) >= 1000 {
                    screen.checkpointIfNeeded()
                    screen.saveCacheIfNeeded()
                }
                continue
            }
            idleTicks = 0
            stats?.keyReceived()
            if let crashKey, key == .character(crashKey) {
                fatalError("crash requested by the test key")
            }
            if key == .resize { terminal.invalidate() }
            guard screen.handle(key) else { return }
            if screen.writesSinceCheckpoint >= 1000 { screen.checkpointIfNeeded() }
            screen.render()
            stats?.frameFlushed()
        }
    }
}
