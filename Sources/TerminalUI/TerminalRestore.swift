#if canImport(Glibc)
    import Glibc
#endif

/// Puts the terminal back the way it was on every way out, including signals and crashes.
///
/// At start-up it saves the tty modes and the terminal's own "leave full-screen mode" and
/// "show cursor" strings (from terminfo). The signal handlers then only call async-signal-safe
/// functions: `tcsetattr`, `write`, `signal`, `raise`, `_exit`.
///
/// A stop signal (SIGTERM, SIGHUP, SIGINT) is first handed to the program: its number is written
/// to ``stopSignalDescriptor``, which the program's loop watches, so it can save its work and
/// restore the terminal itself. A second stop signal, or SIGQUIT, restores and exits at once:
/// a program that is stuck still ends.
enum TerminalRestore {
    /// Readable once a stop signal arrived; one byte per signal, its number.
    nonisolated(unsafe) static var stopSignalDescriptor: Int32 = -1
    nonisolated(unsafe) private static var stopSignalWriter: Int32 = -1
    nonisolated(unsafe) private static var stopRequested: sig_atomic_t = 0
    nonisolated(unsafe) private static var savedModes = termios()
    nonisolated(unsafe) private static var hasSavedModes = false
    nonisolated(unsafe) private static var resetBytes: UnsafeMutablePointer<UInt8>?
    nonisolated(unsafe) private static var resetCount = 0

    /// Saves the tty modes; call before `newterm`, which already changes them.
    static func saveModes() {
        hasSavedModes = tcgetattr(STDIN_FILENO, &savedModes) == 0
    }

    /// Keeps the terminal's reset strings (read from terminfo, so after `newterm`).
    static func save(resetSequence: [UInt8]) {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, resetSequence.count))
        buffer.initialize(from: resetSequence, count: resetSequence.count)
        resetBytes = buffer
        resetCount = resetSequence.count
    }

    /// Installs the handlers: stop signals go to the program once, then restore and exit;
    /// crash signals restore and re-raise.
    static func installSignalHandlers() {
        if stopSignalDescriptor < 0 {
            var ends: [Int32] = [-1, -1]
            if pipe(&ends) == 0 {
                for end in ends {
                    _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                    _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                }
                stopSignalDescriptor = ends[0]
                stopSignalWriter = ends[1]
            }
        }
        for signalNumber in [SIGTERM, SIGHUP, SIGINT] {
            signal(signalNumber) { received in
                if TerminalRestore.stopRequested == 0 && TerminalRestore.stopSignalWriter >= 0 {
                    TerminalRestore.stopRequested = 1
                    var number = UInt8(truncatingIfNeeded: received)
                    if write(TerminalRestore.stopSignalWriter, &number, 1) == 1 { return }
                }
                TerminalRestore.restoreFromSignal()
                _exit(128 + received)
            }
        }
        signal(SIGQUIT) { received in
            TerminalRestore.restoreFromSignal()
            _exit(128 + received)
        }
        for signalNumber in [SIGSEGV, SIGABRT, SIGILL, SIGTRAP, SIGBUS, SIGFPE] {
            signal(signalNumber) { received in
                TerminalRestore.restoreFromSignal()
                signal(received, SIG_DFL)
                raise(received)
            }
        }
    }

    static func restoreFromSignal() {
        if let resetBytes, resetCount > 0 { _ = write(STDOUT_FILENO, resetBytes, resetCount) }
        if hasSavedModes { tcsetattr(STDIN_FILENO, TCSANOW, &savedModes) }
    }

    /// The stop signal that arrived, if one did (read once).
    static func receivedStopSignal() -> Int32? {
        var number: UInt8 = 0
        guard stopSignalDescriptor >= 0, read(stopSignalDescriptor, &number, 1) == 1 else { return nil }
        return Int32(number)
    }

    /// Puts the default handlers back after a normal shutdown.
    static func removeSignalHandlers() {
        for signalNumber in [SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGSEGV, SIGABRT, SIGILL, SIGTRAP, SIGBUS, SIGFPE] {
            signal(signalNumber, SIG_DFL)
        }
    }
}
