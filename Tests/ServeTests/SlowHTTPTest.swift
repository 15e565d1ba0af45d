import Foundation
import TestSupport

/// Debian's slowhttptest against a server on the loopback: connections that open, send part of
/// a request and then a little more every few seconds, never ending it — the head (slowloris)
/// or the body (R-U-Dead-Yet). Bounded in connections and time; its report (a CSV of each
/// second) is read when it ends. It is stopped when the value goes away, and by a watchdog if
/// the test process dies any other way.
final class SlowHTTPTest {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A second of the run as slowhttptest counted it.
    struct Second {
        var second: Int
        var closed: Int
        var pending: Int
        var connected: Int
        /// Its probe (a whole request on a connection of its own) was answered in time.
        var serviceAvailable: Bool
    }

    /// What each connection never finishes.
    enum Attack: String {
        /// The request's head: a header line at a time (slowloris).
        case head = "-H"
        /// A POST's body, declared 8 KB long: a few bytes at a time (R-U-Dead-Yet).
        case body = "-B"
    }

    static let binary = "/usr/bin/slowhttptest"

    private let process = Process()
    private let folder: String

    /// `connections` opened at `rate` a second to `url`, each sending a little more of `attack`
    /// every `interval` seconds, for at most `length` seconds.
    init(
        _ attack: Attack, url: String, connections: Int, rate: Int, interval: Int, length: Int, folder: String
    ) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw Failure(description: "\(Self.binary) is missing: `make deps` installs slowhttptest.")
        }
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/output", contents: nil)
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = [
            attack.rawValue, "-s", "8192", "-c", "\(connections)", "-r", "\(rate)", "-i", "\(interval)", "-l",
            "\(length)", "-u", url,
            "-p", "3", "-g", "-o", folder + "/report",
        ]
        process.standardOutput = FileHandle(forWritingAtPath: folder + "/output")
        process.standardError = process.standardOutput
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let watchdog =
            "while kill -0 \(getpid()) 2>/dev/null && kill -0 \(process.processIdentifier) 2>/dev/null; do sleep 1; done; "
            + "kill -TERM \(process.processIdentifier) 2>/dev/null"
        let guardian = Process()
        guardian.executableURL = URL(fileURLWithPath: "/bin/sh")
        guardian.arguments = ["-c", watchdog]
        try guardian.run()
    }

    deinit { stop() }

    var isRunning: Bool { process.isRunning }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Waits for the run to end by itself; false if it has not within `seconds`.
    func waitForEnd(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(100_000) }
        return !process.isRunning
    }

    /// What it printed (its settings, and why it stopped: "Exit status: …").
    var output: String { (try? String(contentsOfFile: folder + "/output", encoding: .utf8)) ?? "" }

    /// The second of the run it ended on, as it said ("Test ended on 13th second").
    var endSecond: Int? {
        output.firstMatch(of: /Test ended on (\d+)/).flatMap { Int($0.1) }
    }

    /// Its report, a second a line, once it has ended (written each second: the closings of
    /// its last second are not in it).
    func seconds() throws -> [Second] {
        let csv = try String(contentsOfFile: folder + "/report.csv", encoding: .utf8)
        return csv.split(separator: "\n").dropFirst().compactMap { line in
            let cells = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 5, let second = Int(cells[0]), let closed = Int(cells[1]),
                let pending = Int(cells[2]), let connected = Int(cells[3]), let available = Int(cells[4])
            else { return nil }
            return Second(
                second: second, closed: closed, pending: pending, connected: connected, serviceAvailable: available > 0)
        }
    }
}
