import Foundation
import WorldCupModel

/// Standard output, for data (`list`, `export`) and results ("Added …"). A write that fails (a
/// full disk, a closed file) is an error a user can cause, said as one, not a crash.
enum StandardOutput {
    /// Writes `text` whole, or throws.
    ///
    /// - Parameter workDone: whether the command's work is done already, which the error says:
    ///   whoever reads it must not do the work again.
    static func write(_ text: String, workDone: Bool) throws {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
        } catch {
            throw WorldCupError.standardOutputUnwritable(reason: error.systemReason, workDone: workDone)
        }
    }
}
