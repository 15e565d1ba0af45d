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
    /// The server's port (of its Unix socket, and of TCP when it listens on an address).
    public let port: Int

    /// A libpq connection string for the `postgres` database as the `postgres` role.
    public var connectionString: String { "host=\(socketFolder) port=\(port) dbname=postgres user=postgres" }

    /// The cluster shared by a test process, started on first use.
    public static let shared: Result<TemporaryCluster, Error> = Result { try TemporaryCluster() }

    /// The network namespace the server runs in (nil: this process's own).
    public let namespace: String?
    /// The address the server listens on for TCP (nil: none, the Unix socket only).
    public let listenAddress: String?
    /// The server's certificate and key files, when it speaks TLS.
    let tls: (certificate: String, key: String)?

    /// - Parameters:
    ///   - namespace: a network namespace (`ip netns`) to run the server in, for tests of
    ///     several hosts; its Unix socket stays reachable from here.
    ///   - listenAddress: an address to accept TCP connections on (with trust authentication:
    ///     the address is inside a namespace the test made).
    ///   - tls: PEM files of the server's certificate and key, to turn TLS on.
    ///   - maxConnections: the server's `max_connections` (PostgreSQL's default is 100; a test
    ///     needs fewer).
    ///   - durable: `fsync` on, as PostgreSQL's defaults have it, for a benchmark of writers (a
    ///     commit then waits for its WAL flush); off by default, since a test's data is thrown
    ///     away.
    ///   - settings: more server settings, by name (`wal_level`: `logical`).
    public init(
        namespace: String? = nil, listenAddress: String? = nil, tls: (certificate: String, key: String)? = nil,
        maxConnections: Int = 50, durable: Bool = false, settings: [String: String] = [:], port: Int = 5432,
        standbyOf primary: TemporaryCluster? = nil
    ) throws {
        self.maxConnections = maxConnections
        self.durable = durable
        self.settings = settings
        self.port = port
        self.namespace = namespace
        self.listenAddress = listenAddress
        folder = NSTemporaryDirectory() + "worldcup-pg-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: folder + "/socket", withIntermediateDirectories: true)
        if let tls {
            // The server reads them as its own user and refuses a key others may read.
            for (file, name) in [(tls.certificate, "server.crt"), (tls.key, "server.key")] {
                try FileManager.default.copyItem(atPath: file, toPath: folder + "/" + name)
                chmod(folder + "/" + name, 0o600)
            }
            self.tls = (folder + "/server.crt", folder + "/server.key")
        } else {
            self.tls = nil
        }
        let asRoot = getuid() == 0
        if asRoot { try Self.run("/bin/chown", ["-R", "postgres:postgres", folder]) }
        let bin = try Self.binaryFolder()
        if let primary {
            // A streaming standby: the primary's files, and `standby.signal` with the
            // `primary_conninfo` that reaches it (over its Unix socket), written by `-R`. A fast
            // checkpoint: the default spreads the backup's checkpoint over minutes.
            try Self.run(
                bin + "/pg_basebackup",
                [
                    "-D", dataFolder, "-R", "-X", "stream", "--no-sync", "--checkpoint=fast", "-h",
                    primary.socketFolder, "-p",
                    "\(primary.port)", "-U", "postgres", "-d", "application_name=standby_\(port)",
                ],
                asPostgres: asRoot)
        } else {
            try Self.run(
                bin + "/initdb",
                ["-D", dataFolder, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"],
                asPostgres: asRoot)
        }
        if listenAddress != nil {
            let rules = "host all all 0.0.0.0/0 trust\n"
            let hba = try FileHandle(forWritingTo: URL(fileURLWithPath: dataFolder + "/pg_hba.conf"))
            hba.seekToEndOfFile()
            hba.write(Data(rules.utf8))
            try hba.close()
        }
        try pgCtl(["-o", serverOptions, "start"])
        // Stops the server if this process ends without calling stop() (a crash, a kill).
        // SIGQUIT to the postmaster is an immediate shutdown, and works as root (pg_ctl does not).
        let watchdog =
            "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; "
            + "kill -QUIT $(head -1 '\(dataFolder)/postmaster.pid') 2>/dev/null; sleep 2; rm -rf '\(folder)'"
        _ = try Self.spawn(["/bin/sh", "-c", watchdog], output: "/dev/null")
    }

    deinit { stop() }

    /// Stops the server at once (`-m immediate`) and removes its folder.
    public func stop() {
        guard FileManager.default.fileExists(atPath: dataFolder), let bin = try? Self.binaryFolder() else { return }
        _ = try? Self.run(
            bin + "/pg_ctl", ["-D", dataFolder, "-m", "immediate", "-w", "stop"], asPostgres: getuid() == 0)
        try? FileManager.default.removeItem(atPath: folder)
    }

    private let maxConnections: Int
    private let durable: Bool
    private let settings: [String: String]

    /// A Unix socket in the cluster's folder only; no durability unless asked for (a test's data
    /// is thrown away).
    var serverOptions: String {
        "-k \(socketFolder) -p \(port) -c listen_addresses='\(listenAddress ?? "")'"
            + (durable ? "" : " -c fsync=off") + " -c max_connections=\(maxConnections)"
            + (tls.map { " -c ssl=on -c ssl_cert_file=\($0.certificate) -c ssl_key_file=\($0.key)" } ?? "")
            + settings.sorted { $0.key < $1.key }.map { " -c \($0.key)=\($0.value)" }.joined()
    }

    /// Restarts the server (`pg_ctl restart -m fast`): connections are cut, data kept.
    public func restart() throws {
        try pgCtl(["-o", serverOptions, "-m", "fast", "restart"])
    }

    /// Stops the server (`-m fast`), keeping its data, until ``startServer()``.
    public func stopServer() throws {
        try pgCtl(["-m", "fast", "stop"])
    }

    /// Stops the server as its clients see a crash (`-m immediate`: every connection cut at
    /// once, no checkpoint), keeping its data.
    public func crash() throws {
        try pgCtl(["-m", "immediate", "stop"])
    }

    /// Kills the server as a crash would (`SIGKILL` to the postmaster), waits until its
    /// processes are gone, and starts it again: it recovers from its log, as after a power cut.
    public func killAndStart() throws {
        let pidFile = try String(contentsOfFile: dataFolder + "/postmaster.pid", encoding: .utf8)
        guard let pid = pid_t(pidFile.prefix { $0 != "\n" }) else {
            throw ClusterError("no postmaster pid in \(dataFolder)")
        }
        kill(pid, SIGKILL)
        for _ in 0..<500 where kill(pid, 0) == 0 { usleep(10_000) }
        // The server's children leave when they notice their parent is gone; a new server
        // refuses to start while they hold the old shared memory.
        for attempt in 1...50 {
            do {
                try startServer()
                return
            } catch  where attempt < 50 {
                usleep(200_000)
            }
        }
    }

    /// A streaming standby of this server in a folder of its own, on `port`, started (hot: it
    /// answers reads): `pg_basebackup -R`. Stop it before this one, or it keeps trying to reach
    /// it.
    public func makeStandby(port: Int) throws -> TemporaryCluster {
        try TemporaryCluster(maxConnections: maxConnections, durable: durable, port: port, standbyOf: self)
    }

    /// Makes a standby the primary (`pg_ctl promote`), waiting until it accepts writes.
    public func promote() throws {
        try pgCtl(["promote"])
    }

    /// Runs SQL as the `postgres` superuser on the `postgres` database (a setting, a reload).
    public func execute(_ sql: String) throws {
        try Self.run(
            try Self.program("psql"),
            [
                "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", socketFolder, "-p", "\(port)", "-U", "postgres", "-d",
                "postgres", "-c", sql,
            ],
            asPostgres: getuid() == 0)
    }

    /// Starts the server stopped by ``stopServer()``.
    public func startServer() throws {
        try pgCtl(["-o", serverOptions, "start"])
    }

    /// Runs `pg_ctl` on this cluster, in its namespace (a server it starts stays there).
    private func pgCtl(_ arguments: [String]) throws {
        try Self.run(
            try Self.binaryFolder() + "/pg_ctl", ["-D", dataFolder, "-l", folder + "/server.log", "-w"] + arguments,
            asPostgres: getuid() == 0, namespace: namespace)
    }

    /// The path of one of the server's programs (`psql`, `pg_ctl`…).
    public static func program(_ name: String) throws -> String { try binaryFolder() + "/" + name }

    /// Debian keeps the server's programs in /usr/lib/postgresql/VERSION/bin, off the PATH.
    static func binaryFolder() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init)
            .sorted()
        if let newest = versions.last { return "\(root)/\(newest)/bin" }
        throw ClusterError(
            "PostgreSQL's server programs are not installed (looked in \(root)/*/bin): "
                + "run make deps, or apt-get install postgresql")
    }

    /// Runs a server program and waits for it.
    static func run(_ program: String, _ arguments: [String], asPostgres: Bool = false, namespace: String? = nil) throws
    {
        let words =
            (namespace.map { ["/usr/sbin/ip", "netns", "exec", $0] } ?? [])
            + (asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] : [program]) + arguments
        let log = NSTemporaryDirectory() + "worldcup-pg-run-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: log) }
        let pid = try spawn(words, output: log)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw ClusterError("\((program as NSString).lastPathComponent) failed (\(status)): \(output)")
        }
    }

    /// Starts a program with stdin from `input` (nil: /dev/null), stdout and stderr to `output`,
    /// and every descriptor above stderr closed: a server it starts as a daemon (or the
    /// watchdog) would otherwise hold, for its whole life, whatever this process had open at that
    /// moment — the write end of another test's pipe, whose reader then never sees its end.
    public static func spawn(_ words: [String], output: String, input: Int32? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input {
            posix_spawn_file_actions_adddup2(&actions, input, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        guard addCloseFrom(&actions, 3) == 0 else { throw ClusterError("cannot close descriptors for \(words[0])") }
        let argv = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, words[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw ClusterError("cannot start \(words[0]): error \(spawned)") }
        return pid
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module does not declare.
    private static let addCloseFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 =
        {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else {
                fatalError("glibc 2.34 or later is needed (posix_spawn_file_actions_addclosefrom_np)")
            }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

    public struct ClusterError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
