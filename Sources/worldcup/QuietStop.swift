import Foundation

/// Ends the program with status 0 at SIGINT (Ctrl-C) or SIGTERM, for a command that runs until
/// it is stopped (`follow`): it writes each line whole with one `write`, so there is nothing to
/// finish, and `_exit` is safe in a signal handler.
enum QuietStop {
    static func install() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { _ in _exit(0) }
            sigaddset(&signals, signalNumber)
        }
        // A program may start this one with them blocked (Foundation's `Process` does, from a
        // thread that blocks them): they would wait, pending, for ever.
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }
}
