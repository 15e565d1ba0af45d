import Foundation
import WorldCupModel

/// Standard output for a command that prints lines until it is stopped (`follow`), read by a
/// person or by a pipe that may close at any time (`worldcup follow | head -3`).
struct LineOutput {
    /// Standard output, when it is a pipe: `poll` reports an error on it as soon as its reader
    /// closes it, so the command ends then rather than at its next line. Empty otherwise (a
    /// terminal would report keys as readable).
    let watched: [Int32]

    init() {
        // A write to a closed pipe fails with EPIPE, which ends the command, instead of killing it.
        signal(SIGPIPE, SIG_IGN)
        var status = stat()
        let isPipe = fstat(STDOUT_FILENO, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO
        watched = isPipe ? [STDOUT_FILENO] : []
    }

    /// Writes `line` and a newline at once (one `write` for a line up to the pipe's buffer, so
    /// that readers never see half a line); false when nobody reads any more (EPIPE).
    ///
    /// - Throws: ``WorldCupError/standardOutputUnwritable(reason:workDone:)`` for any other failure.
    func write(line: String) throws -> Bool {
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes {
                Foundation.write(STDOUT_FILENO, $0.baseAddress! + written, $0.count - written)
            }
            if count >= 0 {
                written += count
                continue
            }
            switch errno {
            case EINTR: continue
            case EPIPE: return false
            case let code:
                throw WorldCupError.standardOutputUnwritable(reason: String(cString: strerror(code)), workDone: true)
            }
        }
        return true
    }
}
