import FetchedResultsPostgreSQL
import Foundation
import ThrowawayPostgreSQL

/// The PostgreSQL controller on a throw-away local server (Unix socket): N teams made by the
/// server (`generate_series`), the scoreboard's request (zone, wins descending, name; sections
/// by zone; batches of 100), and one +1 win at a time committed by another connection:
/// - the bare commit (nothing observes it);
/// - ours: commit and its announcement (`PostgreSQLChangeFeed.announce(in:)`, as the app's writes
///   do) → the controller's loop, woken in `poll` by its socket, looks and re-reads the touched
///   row → change callbacks delivered;
/// - refetch + diff: commit → the ordered ids fetched again → `difference(from:)`.
/// Also the first fetch: its time, and how much the process's resident memory grew at its peak
/// during it (the peak is reset first through `/proc/self/clear_refs`).
struct PostgreSQLLatency {
    struct Result {
        let teams: Int
        var firstFetchSeconds: Double
        var firstFetchPeakMegabytes: Int
        /// The same fetch by a second controller, from the cache the first one saved.
        var cachedFetchSeconds: Double
        var cachedFetchPeakMegabytes: Int
        /// A progressive fetch's start: `performFetch(firstRows: 1000)`, what a screen shows first.
        var firstRowsSeconds: Double
        /// The rest of that progressive fetch: `loadMoreRows` until every row is held, and its
        /// longest step.
        var loadRestSeconds: Double
        var longestLoadStepMilliseconds: Double
        var bare, ours, refetch: Percentiles
    }

    let cluster: TemporaryCluster
    let teams: Int
    let iterations: Int
    /// Where the cache files go.
    let folder: String

    private struct Team: PostgreSQLRecord {
        var name: String
        init(row: PostgreSQLRow) throws { name = row["teamName"] ?? "" }
    }

    /// The scoreboard's order, as the controller asks for it and as the index keeps it.
    static let order =
        #"lower("qualifyingZone" COLLATE "C") NULLS FIRST, wins DESC NULLS LAST, lower("teamName" COLLATE "C") NULLS FIRST, id"#
    static let orderedIDsSQL = "SELECT id FROM team ORDER BY " + order

    func run() throws -> Result {
        let database = "bench_\(teams)"
        try PostgreSQLConnection(cluster.connectionString).execute("CREATE DATABASE \(database)")
        let conninfo = "host=\(cluster.socketFolder) port=\(cluster.port) dbname=\(database) user=postgres"
        let writer = try PostgreSQLConnection(conninfo)
        try writer.execute(
            """
            CREATE TABLE team (id bigint PRIMARY KEY, "teamName" text NOT NULL, "qualifyingZone" text NOT NULL,
                               wins bigint NOT NULL, "imageName" text)
            """)
        try writer.execute(
            """
            INSERT INTO team SELECT i, 'Team ' || md5(i::text), 'Zone ' || lpad((i % 36)::text, 2, '0'), (i::bigint * 7919) % 50, NULL
            FROM generate_series(1, $1::int) AS i
            """, [teams])
        // Covering: the first fetch reads ids and sort values from the index alone.
        try writer.execute(
            #"CREATE INDEX team_standings ON team (\#(Self.order)) INCLUDE ("qualifyingZone", "teamName")"#)
        try writer.execute("VACUUM ANALYZE team")
        try PostgreSQLChangeFeed.install(on: "team", keyColumn: "id", in: writer)

        let peerIterations = max(10, min(iterations, 20_000_000 / max(teams, 1)))
        func win() throws {
            try writer.execute("UPDATE team SET wins = wins + 1 WHERE id = $1", [Int.random(in: 1...teams)])
        }
        let bare = try Percentiles.measure(iterations, win)

        let request = ControllerLatency.standingsRequest
        let cacheDirectory = URL(fileURLWithPath: folder + "/pg-cache-\(teams)")
        func makeController(cacheName: String? = "standings") -> FetchedResultsController<Team> {
            FetchedResultsController<Team>(
                fetchRequest: request, conninfo: conninfo, sectionNameKeyPath: "qualifyingZone",
                cacheName: cacheName, cacheDirectory: cacheDirectory)
        }
        let delegate = CountingDelegate<Team>()
        func timedFetch(_ controller: FetchedResultsController<Team>) throws -> (seconds: Double, peak: Int) {
            controller.delegate = delegate
            PeakMemory.reset()
            let before = PeakMemory.megabytes(of: "VmRSS")
            let start = Clock.now()
            try controller.performFetch()
            return (Clock.milliseconds(since: start) / 1000, PeakMemory.megabytes(of: "VmHWM") - before)
        }
        // The first controller is gone before the second fetches, as after a relaunch.
        let uncached = try { () throws -> (seconds: Double, peak: Int) in
            let first = makeController()
            let measured = try timedFetch(first)
            try first.saveCache()
            return measured
        }()
        let (firstRows, loadRest, longestStep) = try { () throws -> (Double, Double, Double) in
            // No cache: its steps would take every row from there.
            let progressive = makeController(cacheName: nil)
            progressive.delegate = delegate
            let start = Clock.now()
            try progressive.performFetch(firstRows: 1000)
            let firstRows = Clock.milliseconds(since: start) / 1000
            // The rest in steps of the library's default size, as an app loads between events.
            let restStart = Clock.now()
            var longest = 0.0
            while progressive.hasRowsToLoad {
                let stepStart = Clock.now()
                try progressive.loadMoreRows()
                longest = max(longest, Clock.milliseconds(since: stepStart))
            }
            return (firstRows, Clock.milliseconds(since: restStart) / 1000, longest)
        }()
        let controller = makeController()
        let cached = try timedFetch(controller)
        guard controller.lastFetchSource == .cache else { throw BenchError("the second fetch did not use the cache") }

        let ours = try Percentiles.measure(iterations) {
            try win()
            // As the app's writes do: the follower's socket wakes its loop at once.
            try PostgreSQLChangeFeed.announce(in: writer)
            // As a scoreboard's loop waits: the controller's socket and its next look.
            let before = delegate.changes, end = ContinuousClock.now + .seconds(5)
            while delegate.changes == before {
                guard ContinuousClock.now < end else { throw BenchError("no change seen within 5 s") }
                if controller.wait(until: end).storeMayHaveChanged { try controller.processPendingChanges() }
            }
        }
        if let failure = delegate.failure { throw failure }
        precondition(delegate.changes >= iterations, "every win produced a callback")

        var previous = try writer.execute(Self.orderedIDsSQL).rows.map { Int64($0[0]!)! }
        let refetch = try Percentiles.measure(peerIterations) {
            try win()
            let ids = try writer.execute(Self.orderedIDsSQL).rows.map { Int64($0[0]!)! }
            _ = ids.difference(from: previous)
            previous = ids
        }
        return Result(
            teams: teams, firstFetchSeconds: uncached.seconds, firstFetchPeakMegabytes: uncached.peak,
            cachedFetchSeconds: cached.seconds, cachedFetchPeakMegabytes: cached.peak, firstRowsSeconds: firstRows,
            loadRestSeconds: loadRest, longestLoadStepMilliseconds: longestStep,
            bare: bare, ours: ours, refetch: refetch)
    }
}

/// The process's resident memory: now (`VmRSS`) and at its peak (`VmHWM`), whose peak Linux
/// resets to the current size on request.
enum PeakMemory {
    /// Gives freed memory back to the system first (glibc keeps it otherwise), so that memory an
    /// earlier fetch freed is not reused unseen, then resets the peak.
    static func reset() {
        _ = mallocTrim(0)
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// glibc's `malloc_trim`, which Swift's Glibc module does not declare.
    private static let mallocTrim: @convention(c) (Int) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return { _ in 0 } }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    static func megabytes(of field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }
}
