import TerminalUI
import WorldCupModel

@testable import WorldCupScoreboard

/// A scoreboard on an in-memory grid, driven the way the real loop drives it: each event goes
/// through ``ScoreboardProgram/dispatch(_:at:terminal:)``, and time is the test's own — it
/// moves only when the test says so, so no test waits for a timer.
final class ScoreboardDriver {
    let grid: GridSurface
    let screen: ScoreboardScreen
    let program: ScoreboardProgram
    /// The instant the next event is handled at.
    private(set) var now = ContinuousClock.now
    /// Why the scoreboard ended, once it did.
    private(set) var exit: ScoreboardExit?

    init(store: any ScoreStore, rows: Int = 40, columns: Int = 80, cacheDirectory: String? = nil) throws {
        TextWidth.prepareLocale()
        grid = GridSurface(rows: rows, columns: columns)
        screen = try ScoreboardScreen(
            store: store, surface: grid, renderer: TeamRowRenderer(showsFlags: false), cacheDirectory: cacheDirectory)
        screen.readRowsOnScreen()
        screen.render()
        program = ScoreboardProgram(screen: screen, now: now)
    }

    /// Hands `event` to the program, as the loop does when it happens now.
    func send(_ event: ScoreboardEvent) {
        if let ended = program.dispatch(event, at: now, terminal: grid) { exit = ended }
    }

    /// Sends keys, one event each.
    func press(_ keys: Key...) { for key in keys { send(.key(key)) } }

    func type(_ text: String) { for character in text { press(.character(character)) } }

    /// Another program committed: the store's descriptor turned readable.
    func storeChanged() { send(.storeReadable) }

    /// Moves time on by `duration` in ticks, sending a timer at each tick where the program
    /// wants one, as the loop would while nothing else happens. The program's deadlines are its
    /// own (the store's come as ``storeChanged()``, from the controller's wait), all on the
    /// test's clock.
    func advance(by duration: Duration, tick: Duration = .milliseconds(10)) {
        let end = now + duration
        while now < end, exit == nil {
            now = min(end, now + tick)
            if let wake = program.nextWake(at: now), wake <= now { send(.timer) }
        }
    }

    /// Sends timers for as long as the program has work that waits for no deadline (a load
    /// behind the first frame, a search's count, a filter typed), as the loop does between keys.
    func runWaitingWork(limit: Int = 100_000) {
        for _ in 0..<limit {
            guard let wake = program.nextWake(at: now), wake <= now else { return }
            send(.timer)
            guard screen.canLoadMoreStandings || screen.hasSearchToCount || screen.hasFilterToApply else { return }
        }
    }
}
