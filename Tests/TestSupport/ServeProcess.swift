import Foundation

/// The built `worldcup serve`, run as a user runs it, on a free loopback port; its links read
/// from what it printed.
public final class ServeProcess: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `$WORLDCUP_BIN`, else the debug build.
    public static let binary =
        ProcessInfo.processInfo.environment["WORLDCUP_BIN"]
        ?? packageRoot.appendingPathComponent(".build/debug/worldcup").path
    public static let seed = packageRoot.appendingPathComponent("seed.json").path

    public let process = Process()
    /// Where the server's output goes, and its home (tokens are kept under it).
    public let folder: String
    /// `http://127.0.0.1:PORT/`.
    public private(set) var viewerLink = ""
    /// The scorer link, when `serve` printed one.
    public private(set) var scorerLink: String?
    /// Everything it printed on stdout until it listened.
    public private(set) var output = ""
    /// The file its stdout goes to (its stderr: the same with `.err`).
    public let outputPath: String

    /// Everything it has printed on stdout so far.
    public var printed: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// The scorer token in the scorer link.
    public var token: String? {
        scorerLink.flatMap { $0.range(of: "#scorer=").map { String(scorerLink![$0.upperBound...]) } }
    }

    /// The base URL without the final slash.
    public var base: String { String(viewerLink.dropLast()) }

    /// Starts `worldcup serve --db db` with `arguments`, and waits until it prints its links.
    /// `home` keeps the tokens it makes between runs.
    public init(db: String, home: String, arguments: [String] = [], listen: String = "127.0.0.1:0") throws {
        folder = home
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let stdout = home + "/serve-\(UUID().uuidString.prefix(8)).out"
        outputPath = stdout
        _ = FileManager.default.createFile(atPath: stdout, contents: nil)
        _ = FileManager.default.createFile(atPath: stdout + ".err", contents: nil)
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["serve", "--db", db, "--seed", Self.seed, "--listen", listen] + arguments
        process.environment = [
            "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": home, "XDG_DATA_HOME": home + "/data",
            "XDG_CACHE_HOME": home + "/cache",
        ]
        process.standardOutput = FileHandle(forWritingAtPath: stdout)
        process.standardError = FileHandle(forWritingAtPath: stdout + ".err")
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while true {
            output = (try? String(contentsOfFile: stdout, encoding: .utf8)) ?? ""
            let lines = output.split(separator: "\n")
            if let viewers = lines.first(where: { $0.hasPrefix("Viewers: ") }),
                lines.contains(where: { $0.hasPrefix("Scorers: ") || $0.hasPrefix("Read-only") })
            {
                viewerLink = String(viewers.dropFirst("Viewers: ".count))
                scorerLink = lines.first { $0.hasPrefix("Scorers: http") }
                    .map { String($0.dropFirst("Scorers: ".count)) }
                return
            }
            let errors = (try? String(contentsOfFile: stdout + ".err", encoding: .utf8)) ?? ""
            guard process.isRunning, Date() < deadline else {
                process.terminate()
                throw Failure(description: "worldcup serve did not start: \(output) \(errors)")
            }
            usleep(20_000)
        }
    }

    deinit {
        if process.isRunning { kill() }
    }

    /// Stops it as Ctrl-C does; its exit status.
    @discardableResult
    public func stop() -> Int32 {
        process.interrupt()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Kills it at once (SIGKILL), as a crash or a pulled plug would.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The standings as `/standings.json` answers them.
    public func standingsJSON() throws -> String {
        try HTTPClient.request("GET", base + "/standings.json").text
    }

    /// Each team's wins by name, from `/standings.json`.
    public func wins() throws -> [String: Int] {
        let sections = try JSONSerialization.jsonObject(with: Data(standingsJSON().utf8)) as? [[String: Any]] ?? []
        var wins: [String: Int] = [:]
        for section in sections {
            for team in section["teams"] as? [[String: Any]] ?? [] {
                wins[team["teamName"] as? String ?? ""] = team["wins"] as? Int
            }
        }
        return wins
    }
}
