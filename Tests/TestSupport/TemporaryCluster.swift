import Foundation

/// A throw-away PostgreSQL server for tests: `initdb` in a temporary folder, started with
/// `pg_ctl` on a Unix socket in that folder (no TCP port, so nothing outside can reach it), run
/// as the `postgres` user when the tests run as root (the server refuses to run as root).
///
/// It is stopped when the value goes away, and a watchdog stops it too if the test process dies
/// any other way, so no server outlives a test run.
public final class TemporaryCluster: @unchecked Sendable {
    public let folder: String
    public var socketFolder: String { folder + "/socket" }
    public var dataFolder: String { folder + "/data" }
    public let port = 5432

    /// A libpq connection string for the `postgres` database as the `postgres` role.
    public var connectionString: String { "host=\(socketFolder) port=\(port) dbname=postgres user=postgres" }

    /// The cluster shared by a test process, started on first use.
    public static let shared: Result<TemporaryCluster, Error> = Result { try TemporaryCluster() }

    public init() throws {
        folder = NSTemporaryDirectory() + "worldcup-pg-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: folder + "/socket", withIntermediateDirectories: true)
        let asRoot = getuid() == 0
        if asRoot { try Self.run("/bin/chown", ["-R", "postgres:postgres", folder]) }
        let bin = try Self.binaryFolder()
        try Self.run(bin + "/initdb", ["-D", dataFolder, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"],
                     asPostgres: asRoot)
        let options = "-k \(socketFolder) -p \(port) -c listen_addresses='' -c fsync=off -c max_connections=50"
        try Self.run(bin + "/pg_ctl", ["-D", dataFolder, "-o", options, "-l", folder + "/server.log", "-w", "start"], asPostgres: asRoot)
        // Stops the server if this process ends without calling stop() (a crash, a kill).
        // SIGQUIT to the postmaster is an immediate shutdown, and works as root (pg_ctl does not).
        let watchdog = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; "
            + "kill -QUIT \\$(head -1 '\(dataFolder)/postmaster.pid') 2>/dev/null; sleep 2; rm -rf '\(folder)'"
        _ = system("nohup sh -c \"\(watchdog)\" >/dev/null 2>&1 &")
    }

    deinit { stop() }

    /// Stops the server at once (`-m immediate`) and removes its folder.
    public func stop() {
        guard FileManager.default.fileExists(atPath: dataFolder), let bin = try? Self.binaryFolder() else { return }
        _ = try? Self.run(bin + "/pg_ctl", ["-D", dataFolder, "-m", "immediate", "-w", "stop"], asPostgres: getuid() == 0)
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Restarts the server (`pg_ctl restart -m fast`): connections are cut, data kept.
    public func restart() throws {
        let bin = try Self.binaryFolder()
        let options = "-k \(socketFolder) -p \(port) -c listen_addresses='' -c fsync=off -c max_connections=50"
        try Self.run(bin + "/pg_ctl", ["-D", dataFolder, "-o", options, "-l", folder + "/server.log", "-m", "fast", "-w", "restart"],
                     asPostgres: getuid() == 0)
    }

    /// Debian keeps the server's programs in /usr/lib/postgresql/VERSION/bin, off the PATH.
    static func binaryFolder() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        if let newest = versions.last { return "\(root)/\(newest)/bin" }
        throw ClusterError("PostgreSQL's server programs are not installed (looked in \(root)/*/bin): run make deps, or apt-get install postgresql")
    }

    /// Runs a server program through the shell (`system`), not `Process`: the server it may
    /// start as a daemon would otherwise keep `Process`'s exit-watching descriptor open.
    static func run(_ program: String, _ arguments: [String], asPostgres: Bool = false) throws {
        let words = (asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] : [program]) + arguments
        let log = NSTemporaryDirectory() + "worldcup-pg-run-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: log) }
        let command = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let status = system(command + " </dev/null >'\(log)' 2>&1")
        guard status == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw ClusterError("\((program as NSString).lastPathComponent) failed (\(status)): \(output)")
        }
    }

    public struct ClusterError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
