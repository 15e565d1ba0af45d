import FetchedResults
import Foundation
import TerminalUI
import WorldCupModel

/// Runs the scoreboard in the real terminal until the user quits.
public enum ScoreboardSession {
    /// How often the scoreboard looks while scores wait to be sent again.
    static let doubtLookMilliseconds: Int32 = 250
    /// How long keys and changes rest before the checkpoint and the cache save.
    static let rest = Duration.seconds(1)

    /// - Parameters:
    ///   - crashKey: for testing terminal restoration only: pressing this key makes the program
    ///     trap, as a bug would.
    ///   - commitLog: for testing crash consistency only: a file that gets one line per
    ///     committed win, written right after the commit.
    public static func run(
        store: any ScoreStore, showsFlags: Bool, colors: Bool, cacheDirectory: String? = nil, stats: SessionStats? = nil,
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
        let log = commitLog.flatMap { FileHandle(forWritingAtPath: $0) }
        log?.seekToEndOfFile()
        screen.didCommitWin = { team in
            log?.write(Data("\(team.teamName)\n".utf8))
            stats?.winCommitted()
        }
        screen.render()
        stats?.firstFrameShown(fetchSource: screen.fetchSource)
        // Sleeps until a key or a commit by anyone (the standings' change descriptor: inotify
        // on SQLite, the server's socket on PostgreSQL); without one, looks for commits at the
        // standings' timeout. Once keys and changes have rested for a second, the store's idle
        // housekeeping and the cache save run, and the scoreboard sleeps until the next look
        // the standings ask for (a rare safety look, or a reconnection attempt).
        let results = screen.controller
        let clock = ContinuousClock()
        var restingSince: ContinuousClock.Instant? = clock.now
        while true {
            var timeout = results.nextLookDeadline.map(milliseconds(until:)) ?? -1  // -1: no limit
            // Standings still loading, or a search's matches to count: keys first, and a step
            // whenever none waits.
            if screen.canLoadMoreStandings || screen.hasSearchToCount { timeout = 0 }
            if screen.hasScoresInDoubt { timeout = timeout < 0 ? Self.doubtLookMilliseconds : min(timeout, Self.doubtLookMilliseconds) }
            for deadline in [restingSince.map { $0 + Self.rest }, screen.nextHighlightExpiry].compactMap({ $0 }) {
                let untilDeadline = milliseconds(until: deadline)
                timeout = timeout < 0 ? untilDeadline : min(timeout, untilDeadline)
            }
            let wake = results.wakeDescriptor.map { terminal.waitForKey(timeoutMilliseconds: timeout, orReadable: $0) }
                ?? terminal.readKey(timeoutMilliseconds: timeout).map(CursesTerminal.Wake.key) ?? .timedOut
            let highlightsEnded = screen.expireHighlights()
            guard case .key(let key) = wake else {
                if wake == .inputClosed { return }
                results.didWake()
                if screen.showExternalChanges() {
                    restingSince = clock.now
                    screen.render()
                    stats?.externalChangesFlushed()
                } else if highlightsEnded {
                    screen.render()
                }
                if screen.hasSearchToCount {
                    let step = {
                        screen.countSearchStep()
                        screen.render()
                    }
                    if let stats { stats.timeSearchStep(step) } else { step() }
                    continue
                }
                if screen.canLoadMoreStandings {
                    let step = {
                        screen.loadMoreStandings()
                        screen.render()
                    }
                    if let stats { stats.timeLoadStep(step) } else { step() }
                    if !screen.isLoadingStandings { stats?.standingsLoaded(source: screen.fetchSource) }
                    continue
                }
                if let since = restingSince, clock.now - since >= Self.rest {
                    screen.checkpointIfNeeded()
                    screen.saveCacheIfNeeded()
                    restingSince = nil
                }
                continue
            }
            restingSince = clock.now
            stats?.keyReceived()
            if let crashKey, key == .character(crashKey) {
                fatalError("crash requested by the test key")
            }
            if key == .resize { terminal.invalidate() }
            switch screen.handle(key) {
            case .quit: return
            case .suspend:
                terminal.suspend()
                screen.layout()
            case .repaint: terminal.invalidate()
            case .handled: break
            }
            if screen.writesSinceCheckpoint >= 1000 { screen.checkpointIfNeeded() }
            screen.render()
            stats?.frameFlushed()
        }
    }

    /// Milliseconds from now until `deadline`, rounded up (0 once it passed).
    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        Int32(clamping: Int64(max(0, ((deadline - .now) / .milliseconds(1)).rounded(.up))))
    }
}
