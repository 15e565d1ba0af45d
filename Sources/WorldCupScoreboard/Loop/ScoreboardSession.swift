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
    ///   - screenReader: screen-reader mode (``ScoreboardScreen/isScreenReaderMode``).
    /// - Returns: why the scoreboard ended (a stop signal asks for its exit status).
    public static func run(
        store: any ScoreStore, showsFlags: Bool, colors: Bool, screenReader: Bool = false,
        cacheDirectory: String? = nil,
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
        screen.isScreenReaderMode = screenReader
        screen.didCommit = { [unowned screen] change in
            if change.action == .win { stats?.winCommitted() }
            if let auditLog, !auditLog.record(change) {
                screen.message = "Could not add to the log file \(auditLog.path); the store has the change."
            }
        }
        screen.readRowsOnScreen()
        screen.render()
        stats?.firstFrameShown(fetchSource: screen.fetchSource)
        let clock = ContinuousClock()
        let program = ScoreboardProgram(screen: screen, stats: stats, now: clock.now)
        // Sleeps, in the controller's wait, until a key, a stop signal, the store's news (a
        // commit by anyone, a look it asked for) or the next deadline the program asks for.
        while true {
            let event: ScoreboardEvent
            if let wake = terminal.pendingWake() {
                event = Self.event(wake)
            } else {
                let woke = screen.controller.wait(
                    alongside: terminal.waitDescriptors, until: program.nextWake(at: clock.now), clock: clock)
                event =
                    terminal.wake(readable: woke.readable).map(Self.event)
                    ?? (woke.storeMayHaveChanged ? .storeReadable : .timer)
            }
            if let exit = program.dispatch(event, at: clock.now, terminal: terminal) { return exit }
        }
    }

    private static func event(_ wake: CursesTerminal.Wake) -> ScoreboardEvent {
        switch wake {
        case .key(.resize): .resize
        case let .key(key): .key(key)
        case .inputClosed: .inputClosed
        case let .stopSignal(number): .stopSignal(number)
        }
    }
}
