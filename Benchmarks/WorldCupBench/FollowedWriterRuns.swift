import FetchedResults
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import ThrowawayPostgreSQL
import WorldCupModel
import WorldCupStores

/// Writers of a table that screens follow, on PostgreSQL with its defaults (`fsync` on): pgbench
/// (the server package's own), `UPDATE team SET wins = wins + 1 WHERE id = random` on a store of
/// 100,000 teams that `worldcup` made, at 1, 8, 32 and 64 concurrent writers, in six modes
/// interleaved in one run (each round runs every mode once, in turn):
/// - *no triggers*: the table as if nobody followed it;
/// - *change feed, nobody following*: the feed's triggers alone, the followers paused (what
///   writers pay when the followers run on other machines);
/// - *logical decoding, no triggers*: no triggers, and PostgreSQL's logical decoding streaming
///   the table's changes (`pgoutput`, a slot made for the run) to `pg_recvlogical` on the
///   followers' core, the followers paused: the least that a feed read from the server's own
///   change stream costs its writers, before anything made of the stream;
/// - *change feed, one follower*: the feed as shipped, one of the followers following (a screen
///   on a machine of its own: the others paused);
/// - *change feed*: the feed as shipped (history rows, no `NOTIFY`), every follower following;
/// - *old NOTIFY triggers*: the feed of earlier versions (history rows through `to_jsonb`, and
///   a statement trigger that `NOTIFY`s), for the record.
///
/// Meanwhile eleven results controllers follow the table, each on its own thread and
/// connection with the scoreboard's own request, as `serve` and ten terminal scoreboards do;
/// one more connection commits a +1 win on a team pgbench does not touch every 20 ms and
/// announces it (`PostgreSQLChangeFeed.announce(in:)`, as the app's writes do), and the first
/// controller's callbacks for it are timed from the commit's return (the change feed's two
/// followed modes: nothing follows without triggers). First, nobody writing, what following costs the
/// server: the controllers' looks a second and the server's CPU, beside its CPU with nobody
/// following.
struct FollowedWriterRuns {
    enum Mode: String, CaseIterable {
        case bare = "no triggers"
        case unfollowed = "change feed, nobody following"
        case decoding = "logical decoding, no triggers"
        case single = "change feed, one follower"
        case feed = "change feed"
        case notify = "old NOTIFY triggers"
    }

    struct Sample {
        let writers: Int
        let mode: Mode
        let transactionsPerSecond: Double
        /// Each transaction's latency as pgbench logged it, ms.
        let latencies: [Double]
        /// CPU time per transaction, ms: the server's (every PostgreSQL process), and the
        /// followers' own (this process: the controllers applying the changes, and the probe).
        let serverCPUPerTransaction: Double
        let followersCPUPerTransaction: Double
        /// The decoding mode: how far the decoder was behind the WAL when pgbench ended, MB,
        /// and how long it then took to catch up, s.
        var decoderBehind: (megabytes: Double, catchUpSeconds: Double)?
        var latency: Percentiles { Percentiles(latencies) }
    }

    struct Result {
        let teams: Int
        let seconds: Int
        let rounds: Int
        let followers: Int
        /// Where the followers ran: on a core of their own, or sharing the server's.
        var placement: CorePlacement?
        var samples: [Sample] = []
        /// A win → the first follower's callbacks while pgbench writes, by writer count: with
        /// every follower following (`feed`), and alone (`single`).
        var follow: [Int: Percentiles] = [:]
        var followAlone: [Int: Percentiles] = [:]
        /// Nobody writing: the followers' looks a second, all together, and the server's CPU,
        /// percent of one core.
        var idleLooksPerSecond = 0.0
        var idleServerCPUPercent = 0.0
        /// The same with nobody following.
        var idleBareServerCPUPercent = 0.0
        var idleSeconds = 0
    }

    let worldcup: String
    let folder: String
    var teams = 100_000
    var writerCounts = [1, 8, 32, 64]
    var seconds = 10
    var rounds = 3
    var followers = 11
    var idleSeconds = 10
    /// The followers on a core of their own (``CorePlacement``), when the machine has several.
    var separateCores = true

    func run() throws -> Result {
        // `wal_level` logical for every mode alike, so that the decoding mode can run.
        let cluster = try TemporaryCluster(maxConnections: 100, durable: true, settings: ["wal_level": "logical"])
        defer { cluster.stop() }
        let name = "writers"
        try PostgreSQLConnection(cluster.connectionString).execute("CREATE DATABASE \(name)")
        let uri = "postgresql://postgres@/\(name)?host=\(cluster.socketFolder)&port=\(cluster.port)"
        try ScoreboardDatabase.load(teams: teams, into: uri, worldcup: worldcup)
        let owner = try PostgreSQLConnection(uri)
        try owner.execute("CREATE PUBLICATION \(Self.decodingName) FOR TABLE team")
        let probe = try owner.execute(
            "INSERT INTO team (team_name, qualifying_zone, wins) VALUES ('Probe', 'Zone 00', 0) RETURNING id"
        ).scalar.flatMap(Int64.init)
        guard let probe else { throw BenchError("no probe team") }
        let script = folder + "/pgbench-win.sql"
        try "\\set id random(1, \(teams))\nUPDATE team SET wins = wins + 1 WHERE id = :id;\n".write(
            toFile: script, atomically: true, encoding: .utf8)

        // Nobody writing: the server's CPU with nobody following, then with the followers, once
        // they have settled to their idle pace.
        var result = Result(teams: teams, seconds: seconds, rounds: rounds, followers: followers)
        try Self.set(.feed, owner)
        let postmaster = try Self.postmasterID(cluster)
        let placement = separateCores ? CorePlacement.onThisMachine() : nil
        if let placement {
            try placement.placeServer(postmaster: postmaster)
            try placement.placeFollowers()
        }
        result.placement = placement
        func serverCPUPercent(during body: () -> Void) -> Double {
            let before = ProcessUsage.cpuMillisecondsWithChildren(postmaster), start = Clock.now()
            body()
            return (ProcessUsage.cpuMillisecondsWithChildren(postmaster) - before) / Clock.milliseconds(since: start)
                * 100
        }
        result.idleBareServerCPUPercent = serverCPUPercent { sleep(UInt32(idleSeconds)) }
        let following = try Following(uri: uri, count: followers, probe: probe)
        defer { following.stop() }
        sleep(2)
        let looksBefore = following.looks.value, idleStart = Clock.now()
        result.idleServerCPUPercent = serverCPUPercent { sleep(UInt32(idleSeconds)) }
        result.idleLooksPerSecond =
            Double(following.looks.value - looksBefore) / (Clock.milliseconds(since: idleStart) / 1000)
        result.idleSeconds = idleSeconds
        print(
            String(
                format: "  idle: nobody following, server CPU %.2f%% of a core; %d followers: %.0f looks/s, "
                    + "server CPU %.2f%%", result.idleBareServerCPUPercent, followers, result.idleLooksPerSecond,
                result.idleServerCPUPercent))

        let probeWriter = try PostgreSQLConnection(uri)
        for writers in writerCounts {
            var follow: [Double] = [], followAlone: [Double] = []
            for round in 1...rounds {
                for mode in Mode.allCases {
                    // A win on the probe team is timed while someone follows.
                    let followed = mode == .feed || mode == .single
                    try Self.set(mode, owner)
                    following.paused.set(mode == .unfollowed || mode == .decoding)
                    following.allButFirstPaused.set(mode == .single)
                    try owner.execute("CHECKPOINT")
                    following.latencies.take()
                    let stopProbe = Flag()
                    let probing = Thread { Self.probe(probe, uri: uri, following: following, until: stopProbe) }
                    if followed { probing.start() }
                    let decoder = mode == .decoding ? try startDecoding(cluster, database: name, owner) : nil
                    var sample: Sample
                    do {
                        sample = try pgbench(
                            writers: writers, mode: mode, script: script, cluster: cluster, database: name,
                            postmaster: postmaster, placement: placement, tag: "\(writers)-\(round)-\(mode)")
                    } catch {
                        if let decoder { Self.end(decoder) }
                        throw error
                    }
                    if let decoder { sample.decoderBehind = try stopDecoding(decoder, owner) }
                    stopProbe.set()
                    if followed {
                        while !probing.isFinished { usleep(10_000) }
                        if mode == .feed {
                            follow += following.latencies.take()
                        } else {
                            followAlone += following.latencies.take()
                        }
                    }
                    if mode != .bare && mode != .decoding {
                        // The followers catch up before the next run, with nobody writing: a
                        // win committed after pgbench's (the table's triggers note it), which
                        // each must have seen.
                        following.paused.set(false)
                        following.allButFirstPaused.set(false)
                        try following.waitUntilEachSaw(Self.markerWin(on: probe, owner))
                    }
                    result.samples.append(sample)
                    print(
                        String(
                            format:
                                "  pgbench %2d writers, round %d, %@: %.0f tps, p50 %.2f ms, p99 %.2f ms; "
                                + "CPU per transaction: server %.3f ms, followers %.3f ms",
                            writers, round, mode.rawValue, sample.transactionsPerSecond, sample.latency.p50,
                            sample.latency.p99, sample.serverCPUPerTransaction, sample.followersCPUPerTransaction)
                            + (sample.decoderBehind.map {
                                String(format: "; the decoder %.1f MB behind, caught up %.1f s later", $0.0, $0.1)
                            } ?? ""))
                }
            }
            result.follow[writers] = Percentiles(follow)
            result.followAlone[writers] = Percentiles(followAlone)
            print(
                String(
                    format:
                        "  a win → a follower's callbacks under %d writers: alone p50 %.2f, p99 %.2f ms (%d wins); "
                        + "with the others p50 %.2f, p99 %.2f ms (%d wins)", writers, result.followAlone[writers]!.p50,
                    result.followAlone[writers]!.p99, followAlone.count, result.follow[writers]!.p50,
                    result.follow[writers]!.p99, follow.count))
        }
        _ = probeWriter

        return result
    }

    /// One pgbench run: `writers` clients (two threads, the machine's cores), each transaction
    /// logged, for `seconds`.
    private func pgbench(
        writers: Int, mode: Mode, script: String, cluster: TemporaryCluster, database: String, postmaster: pid_t,
        placement: CorePlacement?, tag: String
    ) throws -> Sample {
        let prefix = folder + "/pgbench-\(tag.replacingOccurrences(of: " ", with: "-"))"
        let output = prefix + ".out"
        let serverBefore = ProcessUsage.cpuMillisecondsOfServer(postmaster)
        let followersBefore = ProcessUsage.cpuMillisecondsOfThisProcess()
        let arguments = [
            try TemporaryCluster.program("pgbench"), "-n", "-M", "prepared", "-c", "\(writers)", "-j",
            "\(min(writers, 2))", "-T", "\(seconds)", "-f", script, "-l", "--log-prefix", prefix, "-h",
            cluster.socketFolder, "-p", "\(cluster.port)", "-U", "postgres", database,
        ]
        let pid = try TemporaryCluster.spawn(placement?.onServerCores(arguments) ?? arguments, output: output)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // The backends of pgbench's connections have ended, and the postmaster counts them.
        usleep(200_000)
        let serverCPU = ProcessUsage.cpuMillisecondsOfServer(postmaster) - serverBefore
        let followersCPU = ProcessUsage.cpuMillisecondsOfThisProcess() - followersBefore
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw BenchError("pgbench failed (\(status)): \(text)") }
        // "tps = 5432.1 (without initial connection time)"
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
            let tps = Double(line.dropFirst(6).prefix { $0 != " " })
        else { throw BenchError("no tps in pgbench's output: \(text)") }
        // Each log line: client, transaction, latency (µs), script, epoch seconds, microseconds.
        var latencies: [Double] = []
        let directory = (prefix as NSString).deletingLastPathComponent
        let stem = (prefix as NSString).lastPathComponent + "."
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasPrefix(stem) {
            guard !file.hasSuffix(".out") else { continue }
            let log = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            for entry in log.split(separator: "\n") {
                let fields = entry.split(separator: " ")
                if fields.count > 2, let micros = Double(fields[2]) { latencies.append(micros / 1000) }
            }
            try? FileManager.default.removeItem(atPath: directory + "/" + file)
        }
        let transactions = Double(max(1, latencies.count))
        return Sample(
            writers: writers, mode: mode, transactionsPerSecond: tps, latencies: latencies,
            serverCPUPerTransaction: serverCPU / transactions, followersCPUPerTransaction: followersCPU / transactions)
    }

    static let decodingName = "worldcup_bench"

    /// Makes a logical replication slot and starts `pg_recvlogical` streaming it (the table's
    /// publication, through `pgoutput`) to nowhere; it runs where this thread runs (the
    /// followers' core), its walsender on the server's. A slot of its own for each run: one
    /// kept between runs would make the next decode every other mode's writes first.
    private func startDecoding(
        _ cluster: TemporaryCluster, database: String, _ owner: PostgreSQLConnection
    ) throws
        -> pid_t
    {
        let name = Self.decodingName
        try owner.execute("SELECT pg_create_logical_replication_slot('\(name)', 'pgoutput')")
        let pid = try TemporaryCluster.spawn(
            [
                try TemporaryCluster.program("pg_recvlogical"), "-h", cluster.socketFolder, "-p", "\(cluster.port)",
                "-U", "postgres", "-d", database, "-S", name, "--start", "-o", "proto_version=1", "-o",
                "publication_names=\(name)", "--no-loop", "-f", "/dev/null",
            ], output: folder + "/pg_recvlogical.out")
        // Streaming once the slot is active.
        try Self.waitUntilSlot(isActive: true, owner, else: "pg_recvlogical did not start streaming")
        return pid
    }

    /// Waits up to 10 s until the decoding slot is in use (`isActive`) or let go.
    private static func waitUntilSlot(isActive: Bool, _ owner: PostgreSQLConnection, else failure: String) throws {
        func inUse() throws -> Bool {
            try owner.execute("SELECT active FROM pg_replication_slots WHERE slot_name = '\(decodingName)'").scalar
                == "t"
        }
        let deadline = Clock.now() + 10_000_000_000
        while try inUse() != isActive {
            guard Clock.now() < deadline else { throw BenchError(failure) }
            usleep(10_000)
        }
    }

    /// Checks that `pg_recvlogical` streamed to the end, notes how far its walsender was behind
    /// the WAL when pgbench ended and how long it took to catch up (work the run did not pay
    /// for), then stops it and drops the slot.
    private func stopDecoding(
        _ pid: pid_t, _ owner: PostgreSQLConnection
    ) throws -> (
        megabytes: Double, catchUpSeconds: Double
    ) {
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            throw BenchError("pg_recvlogical stopped during the run (status \(status))")
        }
        func behind() throws -> Double {
            let bytes = try owner.execute(
                "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), sent_lsn) FROM pg_stat_replication"
                    + " WHERE application_name = 'pg_recvlogical'"
            ).scalar.flatMap(Double.init)
            guard let bytes else { throw BenchError("pg_recvlogical's walsender is gone") }
            return bytes
        }
        let atEnd = try behind(), start = Clock.now()
        // Caught up: within a WAL page of where the server writes.
        while try behind() > 8_192 {
            guard Clock.milliseconds(since: start) < 120_000 else {
                throw BenchError("the decoder fell behind for good")
            }
            usleep(10_000)
        }
        let catchUp = Clock.milliseconds(since: start) / 1000
        Self.end(pid)
        // The walsender lets the slot go as it exits.
        try Self.waitUntilSlot(isActive: false, owner, else: "the decoding slot stayed active")
        try owner.execute("SELECT pg_drop_replication_slot('\(Self.decodingName)')")
        return (atEnd / 1_048_576, catchUp)
    }

    /// Stops `pg_recvlogical` and reaps it.
    private static func end(_ pid: pid_t) {
        kill(pid, SIGINT)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Commits a +1 win on the probe team every 20 ms until `stop`, noting when each commit
    /// returned, by the wins it left.
    private static func probe(_ team: Int64, uri: String, following: Following, until stop: Flag) {
        guard let writer = try? PostgreSQLConnection(uri) else { return }
        while !stop.value {
            guard
                let wins = try? writer.execute("UPDATE team SET wins = wins + 1 WHERE id = $1 RETURNING wins", [team])
                    .scalar.flatMap(Int64.init)
            else { return }
            following.latencies.committed(wins: wins, at: Clock.now())
            // As the app's writes do: the followers look at once, not at their next look.
            try? PostgreSQLChangeFeed.announce(in: writer)
            usleep(20_000)
        }
    }

    /// Commits a +1 win on the probe team, announced, and returns its wins.
    private static func markerWin(on team: Int64, _ owner: PostgreSQLConnection) throws -> Int64 {
        guard
            let wins = try owner.execute("UPDATE team SET wins = wins + 1 WHERE id = $1 RETURNING wins", [team])
                .scalar.flatMap(Int64.init)
        else { throw BenchError("the probe team is gone") }
        try PostgreSQLChangeFeed.announce(in: owner)
        return wins
    }

    /// Puts the table's triggers in `mode`.
    static func set(_ mode: Mode, _ owner: PostgreSQLConnection) throws {
        switch mode {
        case .bare, .decoding:
            for trigger in ["rows", "truncate", "notify"] {
                try owner.execute("DROP TRIGGER IF EXISTS fetched_results_team_\(trigger) ON team")
            }
        case .feed, .unfollowed, .single:
            try PostgreSQLChangeFeed.install(on: "team", keyColumn: "id", in: owner)
        case .notify:
            try PostgreSQLChangeFeed.install(on: "team", keyColumn: "id", in: owner)
            try EarlierChangeFeed.install(on: "team", owner)
        }
    }

    static func postmasterID(_ cluster: TemporaryCluster) throws -> pid_t {
        let file = try String(contentsOfFile: cluster.dataFolder + "/postmaster.pid", encoding: .utf8)
        guard let pid = file.split(separator: "\n").first.flatMap({ pid_t($0) }) else {
            throw BenchError("no pid in postmaster.pid")
        }
        return pid
    }
}

/// A count several threads add to.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}

/// Results controllers following the standings, each on a thread of its own.
final class Following: @unchecked Sendable {
    /// When each probe win committed and when the first follower had it.
    final class Latencies: @unchecked Sendable {
        private let lock = NSLock()
        private var commits: [Int64: UInt64] = [:]
        private var samples: [Double] = []
        func committed(wins: Int64, at time: UInt64) { lock.withLock { commits[wins] = time } }
        func seen(wins: Int64, at time: UInt64) {
            lock.withLock {
                if let committed = commits.removeValue(forKey: wins) {
                    samples.append(Double(time &- committed) / 1e6)
                }
            }
        }
        @discardableResult
        func take() -> [Double] {
            lock.withLock {
                defer {
                    samples = []
                    commits = [:]
                }
                return samples
            }
        }
    }

    private final class Delegate: FetchedResultsControllerDelegate {
        let probe: Int64
        let index: Int
        let latencies: Latencies?
        let probeWins: ProbeWins
        init(probe: Int64, index: Int, latencies: Latencies?, probeWins: ProbeWins) {
            self.probe = probe
            self.index = index
            self.latencies = latencies
            self.probeWins = probeWins
        }
        private var probePath: IndexPath?
        func controller(_ controller: FetchedResultsController<Team>, didChange object: ObjectChange) {
            if object.rowID == probe { probePath = object.newIndexPath }
        }
        func controllerDidChangeContent(_ controller: FetchedResultsController<Team>) {
            guard let path = probePath, let team = try? controller.object(at: path) else { return }
            probePath = nil
            latencies?.seen(wins: Int64(team.wins), at: Clock.now())
            probeWins.saw(Int64(team.wins), by: index)
        }
        func controller(_ controller: FetchedResultsController<Team>, didFailWith error: any Error) {
            FileHandle.standardError.write(Data("a follower failed: \(error)\n".utf8))
        }
    }

    let latencies = Latencies()
    let looks = Counter()
    /// The probe team's wins as each follower last showed them.
    private let probeWins: ProbeWins
    /// While on, the followers do not look (the feed's cost to writers alone).
    let paused = Flag()
    /// While on, only the first follower looks (a screen on a machine of its own).
    let allButFirstPaused = Flag()
    private let stopping = Flag()
    private var threads: [Thread] = []

    init(uri: String, count: Int, probe: Int64) throws {
        let ready = Counter(), failed = Flag()
        probeWins = ProbeWins(count: count)
        let latencies = latencies, looks = looks, stopping = stopping, paused = paused, probeWins = probeWins,
            allButFirstPaused = allButFirstPaused
        for index in 0..<count {
            let thread = Thread {
                do {
                    let store = try PostgreSQLTeamStore.open(conninfo: uri)
                    let controller = store.standingsController(cacheDirectory: nil)
                    let delegate = Delegate(
                        probe: probe, index: index, latencies: index == 0 ? latencies : nil, probeWins: probeWins)
                    controller.delegate = delegate
                    try controller.performFetch()
                    ready.add()
                    while !stopping.value {
                        if paused.value || (index > 0 && allButFirstPaused.value) {
                            usleep(10_000)
                            continue
                        }
                        let woke = controller.wait(until: .now + .milliseconds(200))
                        if woke.storeMayHaveChanged {
                            looks.add()
                            try controller.processPendingChanges()
                        }
                    }
                    controller.stopTracking()
                } catch {
                    FileHandle.standardError.write(Data("a follower stopped: \(error)\n".utf8))
                    failed.set()
                }
            }
            thread.stackSize = 4 << 20
            thread.start()
            threads.append(thread)
        }
        while ready.value < count, !failed.value { usleep(10_000) }
        if failed.value { throw BenchError("a follower could not start") }
    }

    /// Waits until every follower shows the probe team with `wins` or more: each has applied
    /// every commit up to the one that left them. (A look that returns nothing proves nothing:
    /// one sent ahead returns before its rows arrive.)
    func waitUntilEachSaw(_ wins: Int64) throws {
        let deadline = Clock.now() + 120_000_000_000
        while !probeWins.allReached(wins) {
            guard Clock.now() < deadline else { throw BenchError("the followers did not catch up in 120 s") }
            usleep(10_000)
        }
    }

    /// The probe team's wins as each follower last showed them.
    final class ProbeWins: @unchecked Sendable {
        private let lock = NSLock()
        private var wins: [Int64]
        init(count: Int) { wins = Array(repeating: 0, count: count) }
        func saw(_ value: Int64, by index: Int) { lock.withLock { wins[index] = max(wins[index], value) } }
        func allReached(_ value: Int64) -> Bool { lock.withLock { wins.allSatisfy { $0 >= value } } }
    }

    func stop() {
        stopping.set()
        while threads.contains(where: { !$0.isFinished }) { usleep(10_000) }
    }
}
