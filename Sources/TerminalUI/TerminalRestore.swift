#if canImport(Glibc)
import Glibc
#endif

/// Puts the terminal back the way it was on every way out, including signals and crashes.
///
/// At start-up it saves the tty modes and the terminal's own "leave full-screen mode" and
/// "show cursor" strings (from terminfo). The signal handlers then only call async-signal-safe
/// functions: `tcsetattr`, `write`, `signal`, `raise`, `_exit`.
enum TerminalRestore {
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

    /// Installs the handlers: quit signals restore and exit; crash signals restore and re-raise.
    static func installSignalHandlers() {
        for signalNumber in [SIGTERM, SIGHUP, SIGINT, SIGQUIT] {
            signal(signalNumber) { received in
                TerminalRestore.restoreFromSignal()
                _exit(128 + received)
            }
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

    /// Puts the default handlers back after a normal shutdown.
    static func removeSignalHandlers() {
        for signalNumber in [SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGSEGV, SIGABRT, SIGILL, SIGTRAP, SIGBUS, SIGFPE] {
            signal(signalNumber, SIG_DFL)
        }
    }
}
