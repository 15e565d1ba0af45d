import TerminalUI

/// What the scoreboard's loop hands to ``ScoreboardProgram/update(_:at:)``: what happened
/// outside, and what an effect found.
public enum ScoreboardEvent: Equatable, Sendable {
    /// A key or a click.
    case key(Key)
    /// The terminal changed size.
    case resize
    /// The store's change descriptor turned readable: another program may have committed.
    case storeReadable
    /// A deadline the program asked for passed (``ScoreboardProgram/nextWake(at:)``).
    case timer
    /// The terminal is back after a suspension (Ctrl-Z, then `fg`).
    case resumed
    /// A stop signal (SIGTERM, SIGHUP, SIGINT, by its number).
    case stopSignal(Int32)
    /// The terminal went away: no key will ever come.
    case inputClosed
    /// A look at the store finished; `changed` when it showed others' commits.
    case looked(changed: Bool)
    /// A step of the load behind the first frame finished; `finished` when every team is loaded,
    /// `saidSomething` when it left a new message on the status line (an error).
    case loadStepped(finished: Bool, saidSomething: Bool)
}

/// What ``ScoreboardProgram/update(_:at:)`` asks the loop to do, in order.
public enum ScoreboardEffect: Equatable, Sendable {
    /// One transaction on the store.
    case write(ScoreboardWrite)
    /// Look for other programs' commits (and send again any score in doubt).
    case look
    /// Load the next part of big standings behind the first frame.
    case loadStep
    /// Count more of a search's matches.
    case searchStep
    /// Narrow the list to the filter's text as typed so far.
    case filterStep
    /// Move the store's write-ahead log into the database, if at least this many writes wait.
    case checkpoint(afterWrites: Int)
    /// Save the standings' cache for the next start, if it changed.
    case saveCache
    /// Draw the rows that changed.
    case redraw
    /// Paint the whole terminal again with the next frame.
    case repaint
    /// Give the terminal back until `fg`.
    case suspend
    /// End the loop.
    case quit(ScoreboardExit)
}

/// Why the scoreboard ended.
public enum ScoreboardExit: Equatable, Sendable {
    /// The user quit (q, Esc, Ctrl-C).
    case quit
    /// A stop signal, by its number: the shell expects the status 128 + the number.
    case stopSignal(Int32)
    /// The terminal went away.
    case inputClosed
}
