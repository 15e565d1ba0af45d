import Foundation
import TerminalUI
import WorldCupModel

/// Runs the scoreboard in the real terminal until the user quits: the terminal's and the
/// store's events, read from the clock and `poll`, handed to a ``ScoreboardProgram``.
public enum ScoreboardSession {
    /// - Parameters:
    ///   - cacheDirectory: where the standings' cache lives between launches, or nil.
    ///   - stats: timing figures for benchmarks (`--stats`), or nil.
    ///   - auditLog: the file that gets one line per change the user was told is done, or nil.
    ///   - changeHighlightDuration: how long others' changes stay highlighted; nil: the default.
    /// - Returns: why the scoreboard ended (a stop signal asks for its exit status).
    public static func run(
        store: any ScoreStore, showsFlags: Bool, colors: Bool, cacheDirectory: String? = nil,
        stats: SessionStats? = nil, auditLog: AuditLog? = nil, changeHighlightDuration: Duration? = nil
    ) throws -> ScoreboardExit {
        defer { stats?.write() }
        let terminal = try CursesTerminal.start(colors: colors)
        defer { terminal.stop() }
        let screen = try ScoreboardScreen(
            store: store, surface: terminal, renderer: TeamRowRenderer(showsFlags: showsFlags),
            cacheDirectory: cacheDirectory)
        defer { screen.saveCacheIfNeeded() }
        if let changeHighlightDuration { screen.changeHighlightDuration = changeHighlightDuration }
        screen.didCommit = { [unowned screen] change in
            if change.action == .win { stats?.winCommitted() }
            if let auditLog, !auditLog.record(change) {
                screen.message = "Could not add to the log file \(auditLog.path); the store has the change."
            }
        }
        screen.render()
        stats?.firstFrameShown(fetchSource: screen.fetchSource)
        let clock = ContinuousClock()
        let program = ScoreboardProgram(screen: screen, stats: stats, now: clock.now)
        // Sleeps until a key, a stop signal, a commit by anyone (the standings' change
        // descriptor: inotify on SQLite, the server's socket on PostgreSQL) or the next
        // deadline the program asks for.
        while true {
            let timeout = program.nextWake(at: clock.now).map { milliseconds(from: clock.now, until: $0) } ?? -1
            let event: ScoreboardEvent =
                switch terminal.wait(timeoutMilliseconds: timeout, orReadable: screen.controller.wakeDescriptor) {
                case .key(.resize): .resize
                case let .key(key): .key(key)
                case .otherDescriptor: .storeReadable
                case .timedOut: .timer
                case .inputClosed: .inputClosed
                case let .stopSignal(number): .stopSignal(number)
                }
            if let exit = program.dispatch(event, at: clock.now, terminal: terminal) { return exit }
        }
    }

    /// Milliseconds from `now` until `deadline`, rounded up (0 once it passed).
    private static func milliseconds(
        from now: ContinuousClock.Instant, until deadline: ContinuousClock.Instant
    )
        -> Int32
    {
        Int32(clamping: Int64(max(0, ((deadline - now) / .milliseconds(1)).rounded(.up))))
    }
}
