import Foundation

/// A change a user was told is done — a win, the undo of one, an added team, an added team
/// taken back — as the audit log records it.
public struct CommittedChange: Equatable, Sendable {
    /// What was done.
    public enum Action: String, Sendable {
        case win
        /// A win taken back.
        case undo
        /// A team added.
        case add
        /// An added team taken back.
        case remove
    }

    public var action: Action
    public var teamID: Int64
    public var teamName: String
    /// The key that made the score count once (nil for adding and removing a team).
    public var key: ScoreKey?

    public init(_ action: Action, teamID: Int64, teamName: String, key: ScoreKey? = nil) {
        self.action = action
        self.teamID = teamID
        self.teamName = teamName
        self.key = key
    }
}

/// The audit log (`--log FILE`): one line per change a user was told is done, appended as soon
/// as its transaction committed, so an organiser can check every score against the store.
///
/// Each line has five fields separated by tabs: the time (UTC, ISO 8601 with milliseconds),
/// the action (`win`, `undo`, `add`, `remove`), the score key (`-` for a team added or removed),
/// the team's id, and its name with `\`, tab, line breaks and other control characters written
/// as `\\`, `\t`, `\n`, `\r` and `\xHH`. Lines are appended with one `write` each: a process
/// killed at any moment leaves whole lines, and several processes can share one file.
public final class AuditLog {
    /// The file, as messages name it.
    public let path: String
    private let descriptor: Int32

    /// Opens `path` for appending, creating it if needed.
    public init(path: String) throws {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            if code == EISDIR { throw WorldCupError.fileIsAFolder(path: path, kind: .auditLog) }
            throw WorldCupError.fileUnwritable(path: path, kind: .auditLog, reason: String(cString: strerror(code)))
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Appends the line of `change`, made at `date`; false when the file could not take it.
    @discardableResult
    public func record(_ change: CommittedChange, at date: Date = Date()) -> Bool {
        let bytes = Array(Self.line(change, at: date).utf8)
        return bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count
    }

    /// The line for `change` made at `date`, with its newline.
    public static func line(_ change: CommittedChange, at date: Date) -> String {
        let time = date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        let fields = [
            time, change.action.rawValue, change.key?.description ?? "-", String(change.teamID),
            escaped(change.teamName),
        ]
        return fields.joined(separator: "\t") + "\n"
    }

    /// `text` on one line, without tabs: control characters and `\` written as escapes.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\u{0}"..."\u{1F}", "\u{7F}"..."\u{9F}":
                result += "\\x" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
