import Foundation

/// A change a user was told is done — a win, the undo of one, an added team, an added team
/// taken back, an organiser's correction — as the audit log records it.
public struct CommittedChange: Equatable, Sendable {
    /// What was done.
    public enum Action: String, Sendable {
        case win
        /// A win taken back.
        case undo
        /// A team added.
        case add
        /// A team removed: an added team taken back, or `worldcup remove`.
        case remove
        /// A team's wins corrected (`worldcup set-wins`).
        case setWins = "set-wins"
        /// A team renamed (`worldcup rename`).
        case rename
    }

    /// What a correction changed: the value before and after it.
    public struct Values: Equatable, Sendable {
        public var from: String
        public var to: String

        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    public var action: Action
    public var teamID: Int64
    public var teamName: String
    /// The key that made the score count once (nil for adding and removing a team).
    public var key: ScoreKey?
    /// A correction's wins or names before and after it (nil for the other actions).
    public var values: Values?

    public init(_ action: Action, teamID: Int64, teamName: String, key: ScoreKey? = nil, values: Values? = nil) {
        self.action = action
        self.teamID = teamID
        self.teamName = teamName
        self.key = key
        self.values = values
    }
}

/// The audit log (`--log FILE`): one line per change a user was told is done, appended as soon
/// as its transaction committed, so an organiser can check every score against the store.
///
/// Each line has five fields separated by tabs: the time (UTC, ISO 8601 with milliseconds),
/// the action (`win`, `undo`, `add`, `remove`, `set-wins`, `rename`), the score key (`-` for
/// all but wins and undos), the team's id, and its name (before a rename) with `\`, tab, line
/// breaks and other control characters written as `\\`, `\t`, `\n`, `\r` and `\xHH`. A
/// correction's line has two more: the wins or the name before and after it. Lines are
/// appended with one `write` each: a process killed at any moment leaves whole lines, and
/// several processes can share one file.
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
        let fields =
            [
                time, change.action.rawValue, change.key?.description ?? "-", String(change.teamID),
                escaped(change.teamName),
            ] + (change.values.map { [escaped($0.from), escaped($0.to)] } ?? [])
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
