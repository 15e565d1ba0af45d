import Foundation
import TestSupport

/// A real terminal for end-to-end tests: a detached tmux session on a private server, driven
/// with send-keys and read with capture-pane.
final class Tmux: @unchecked Sendable {
    static let socket = "worldcup-tests-\(getpid())"
    let session: String

    /// Starts `command` (run by sh) in a new session of the given size.
    init(width: Int = 100, height: Int = 40, command: String) throws {
        session = "s\(UUID().uuidString.prefix(8))"
        // When the previous test killed the server's last session, the server may still be
        // exiting and refuse the new one ("server exited unexpectedly"): try again.
        for _ in 0..<20 {
            try Self.tmux(
                startingServer: true,
                [
                    "new-session", "-d", "-s", session, "-x", String(width), "-y", String(height),
                    "env", "LANG=C.UTF-8", "TERM=screen", "sh", "-c", command,
                ])
            if Self.hasSession(session) { break }
            usleep(100_000)
        }
        try Self.tmux(["set-option", "-t", session, "remain-on-exit", "on"])
    }

    deinit { _ = try? Self.tmux(["kill-session", "-t", session]) }

    /// Runs a tmux command and returns what it printed.
    ///
    /// - Parameter startingServer: the command may start the tmux server. Foundation's `Process`
    ///   learns that a child exited through a descriptor the child inherits, and the daemonised
    ///   server would hold it forever; such a command runs through `system` (plain `waitpid`).
    @discardableResult
    static func tmux(startingServer: Bool = false, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        process.arguments = ["-u", "-L", socket, "-f", "/dev/null"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LANG"] = "C.UTF-8"
        environment.removeValue(forKey: "TMUX")
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        guard !startingServer else {
            let quoted = (["/usr/bin/tmux", "-u", "-L", socket, "-f", "/dev/null"] + arguments)
                .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            _ = system("LANG=C.UTF-8 " + quoted.joined(separator: " ") + " </dev/null >/dev/null 2>&1")
            return ""
        }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func hasSession(_ name: String) -> Bool {
        let quoted = ["/usr/bin/tmux", "-L", socket, "-f", "/dev/null", "has-session", "-t", name].map { "'\($0)'" }
            .joined(separator: " ")
        return system(quoted + " </dev/null >/dev/null 2>&1") == 0
    }

    /// Key names as tmux knows them (Enter, Up, Escape, C-c …).
    func press(_ keys: String...) throws {
        for key in keys { try Self.tmux(["send-keys", "-t", session, key]) }
    }

    /// Types text literally.
    func type(_ text: String) throws {
        try Self.tmux(["send-keys", "-t", session, "-l", text])
    }

    var lines: [String] {
        (try? Self.tmux(["capture-pane", "-p", "-t", session]))?
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init) ?? []
    }

    /// The last line with text: the status line.
    var statusLine: String { lines.last { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? "" }

    /// The text of the line drawn in reverse video (the cursor row), if any.
    var cursorLine: String? { cursor?.text }

    /// The screen row and text of the highlighted line (the cursor row), if any.
    var cursor: (row: Int, text: String)? {
        guard let raw = try? Self.tmux(["capture-pane", "-p", "-e", "-t", session]) else { return nil }
        let lines = raw.split(separator: "\n", omittingEmptySubsequences: false)
        guard let row = lines.firstIndex(where: Self.isHighlighted) else { return nil }
        return (
            row, String(lines[row]).replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        )
    }

    /// Whether a line of `capture-pane -e` turns on the highlight bar: reverse video (SGR 7),
    /// or the bar's cyan background (46, 48;5;6), which it is on terminals that erase in
    /// colour. Other backgrounds are not the bar: a stripe's grey, a flash's amber.
    static func isHighlighted(_ line: Substring) -> Bool {
        line.matches(of: /\x{1B}\[([0-9;]*)m/).contains { match in
            let text = match.output.1
            var parameters = text.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }[...]
            while let parameter = parameters.popFirst() {
                switch parameter {
                case 7, 46: return true
                case 48 where parameters.first == 5:
                    if parameters.dropFirst().first == 6 { return true }
                    parameters = parameters.dropFirst(2)
                case 38, 48: parameters = parameters.dropFirst(parameters.first == 5 ? 2 : 4)
                default: break
                }
            }
            return false
        }
    }

    /// Waits until the screen satisfies `condition`; false after `timeout` seconds.
    @discardableResult
    func wait(timeout: Double = 10, _ condition: ([String]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(lines) { return true }
            usleep(20_000)
        }
        return condition(lines)
    }

    func waitFor(_ text: String, timeout: Double = 10) -> Bool {
        wait(timeout: timeout) { $0.contains { $0.contains(text) } }
    }

    /// The tutorial's secret: the shake (S), then + and the Add Team dialog, filled in and saved.
    /// Returns whether the dialog opened.
    func addSecretTeam(name: String, zone: String) throws -> Bool {
        try press("S", "+")
        guard waitFor("Secret Team") else { return false }
        try type(name)
        try press("Tab")
        try type(zone)
        try press("Enter")
        return true
    }

    /// Moves the cursor down from the top until it is on the named team.
    func moveCursor(to name: String) throws -> Bool {
        try press("Home")
        // Until Home is handled the screen still shows the cursor where it was, maybe on the
        // very team looked for: wait for it to reach the first team row (under the title and
        // the first section header) before reading it.
        _ = waitUntil(timeout: 5) { self.cursor?.row == 3 }
        for _ in 0..<80 {
            if waitUntil(timeout: 0.5, { self.cursorLine?.contains(" \(name) ") == true }) { return true }
            try press("Down")
        }
        return false
    }

    func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    /// The wins shown on the named team's row.
    func wins(of name: String) -> Int? {
        lines.first { $0.contains(" \(name) ") }.flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    func resize(width: Int, height: Int) throws {
        try Self.tmux(["resize-window", "-t", session, "-x", String(width), "-y", String(height)])
    }

    /// Appends everything the program writes to the terminal to `file`.
    func recordOutput(to file: String) throws {
        try Self.tmux(["pipe-pane", "-t", session, "-o", "cat >> '\(file)'"])
    }

    /// A pane variable of tmux's (`cursor_flag`, `alternate_on`, `pane_tty` …).
    func paneValue(_ name: String) -> String {
        ((try? Self.tmux(["display-message", "-p", "-t", session, "#{\(name)}"])) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether the hardware cursor is shown.
    var isCursorVisible: Bool { paneValue("cursor_flag") == "1" }

    /// Whether the session's command has exited.
    var commandExited: Bool {
        ((try? Self.tmux(["display-message", "-p", "-t", session, "#{pane_dead}"])) ?? "").hasPrefix("1")
    }
}

extension TemporaryDirectory {
    /// The scoreboard on this folder's store, as a shell command.
    var scoreboard: String {
        "XDG_CACHE_HOME='\(path)/cache' '\(WorldCupProcess.binary)' --db '\(store)' "
            + "--seed '\(WorldCupProcess.seedPath)'"
    }
}
