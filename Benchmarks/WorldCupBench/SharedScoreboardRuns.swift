import FetchedResultsPostgreSQL
import Foundation
import ThrowawayPostgreSQL

/// The shared scoreboard across hosts: a server in one network namespace, the real binary's
/// scoreboards in two others (tmux, `--stats`). One scoreboard presses Enter; the other's
/// stats say when it flushed the frame that showed each win. Both read the machine's
/// monotonic clock, so a win's latency is the other screen's flush minus the key's arrival
/// (which includes the win's own commit).
struct SharedScoreboardRuns {
    struct Result {
        let teams: Int
        /// The first frame over the network, without and with the standings' cache.
        var uncachedFirstFrameMilliseconds: Double
        var cachedFirstFrameMilliseconds: Double
        /// Every team loaded behind the first frame, without and with the cache (nil: the first
        /// fetch held them all).
        var uncachedAllLoadedMilliseconds: Double?
        var cachedAllLoadedMilliseconds: Double?
        /// A win's key on one host (its commit included) → the other host's screen flushed with it.
        var winToOtherScreen: Percentiles
        /// The scoreboard's standings controller's plain full `performFetch()` on a host, over
        /// the same network (median of three): what the load behind the first frame is held to.
        var fullFetchMilliseconds: Double
    }

    let app: AppRuns
    let teams: Int
    let wins: Int

    func run() throws -> Result {
        let lab = try NetworkLab(hosts: 2)
        let cluster = try TemporaryCluster(namespace: lab.server, listenAddress: NetworkLab.serverAddress)
        defer { cluster.stop() }
        try PostgreSQLConnection(cluster.connectionString).execute("CREATE DATABASE worldcup")
        let local = "postgresql://postgres@/worldcup?host=\(cluster.socketFolder)&port=\(cluster.port)"
        try ScoreboardDatabase.load(teams: teams, into: local, worldcup: app.worldcup)
        let uri = "postgresql://postgres@\(NetworkLab.serverAddress):\(cluster.port)/worldcup"
        let cacheHome = app.folder + "/shared-cache-\(teams)"
        func onHost(_ index: Int) -> [String] { ["ip", "netns", "exec", lab.hosts[index]] }

        // A load over the network varies a lot from one session to the next (1.3 to 2.3 s at a
        // million teams with the same binary): the median of three sessions without a cache, the
        // last of which saves the cache the next one reads.
        let uncachedRuns = try (0..<3).map { run in
            try session(
                uri: uri, cacheHome: run == 2 ? cacheHome : cacheHome + "-\(run)", launcher: onHost(0), name: "a"
            ) { _ in }
        }
        let fullFetch = Percentiles(
            try (0..<3).map { _ in try FullFetchProbe.run(uri: uri, launcher: onHost(0), folder: app.folder) }
        ).p50
        let cached = try session(uri: uri, cacheHome: cacheHome, launcher: onHost(0), name: "a") { _ in }
        // The first rows come from the server; with a cache, the rest come from it.
        guard uncachedRuns.allSatisfy({ $0.source == "store" && $0.loadedFrom != "cache" }),
            cached.allLoadedMilliseconds == nil || cached.loadedFrom == "cache"
        else {
            throw BenchError(
                "the standings came from \(uncachedRuns.map { $0.loadedFrom ?? "?" }) and \(cached.loadedFrom ?? "?")"
                    + ", not store then cache")
        }
        var scorer: AppRuns.Session?
        let watcher = try session(uri: uri, cacheHome: cacheHome, launcher: onHost(0), name: "a") { _ in
            scorer = try session(uri: uri, cacheHome: cacheHome + "-b", launcher: onHost(1), name: "b") { name in
                for _ in 0..<wins {
                    try app.tmux(["send-keys", "-t", name, "Enter"])
                    usleep(60_000)
                }
                usleep(500_000)
            }
        }
        let keys = scorer?.winKeysAt ?? []
        guard keys.count == wins else { throw BenchError("the scorer committed \(keys.count) of \(wins) wins") }
        let latencies = keys.compactMap { at in watcher.externalFramesAt.first { $0 >= at }.map { $0 - at } }
        // Two wins that arrive within one look share a frame: each win's time runs to the first
        // frame at or after its key.
        guard latencies.count == wins else {
            throw BenchError(
                "the watcher showed \(watcher.externalFramesAt.count) frames for \(wins) wins, the last ones missing")
        }
        return Result(
            teams: teams, uncachedFirstFrameMilliseconds: Percentiles(uncachedRuns.map(\.firstFrameMilliseconds)).p50,
            cachedFirstFrameMilliseconds: cached.firstFrameMilliseconds,
            uncachedAllLoadedMilliseconds: uncachedRuns.allSatisfy { $0.allLoadedMilliseconds != nil }
                ? Percentiles(uncachedRuns.compactMap(\.allLoadedMilliseconds)).p50 : nil,
            cachedAllLoadedMilliseconds: cached.allLoadedMilliseconds,
            winToOtherScreen: Percentiles(latencies), fullFetchMilliseconds: fullFetch)
    }

    /// A scoreboard with `--stats` in tmux session `name`; `during` runs while it is open,
    /// then it quits and its figures are read.
    private func session(
        uri: String, cacheHome: String, launcher: [String], name: String,
        during: (String) throws -> Void
    ) throws -> AppRuns.Session {
        let stats = app.folder + "/stats-\(name)-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: stats) }
        try app.startScoreboard(
            store: uri, cacheHome: cacheHome, options: ["--stats", stats], session: name, launcher: launcher)
        try during(name)
        try app.tmux(["send-keys", "-t", name, "q"])
        try app.waitUntil(seconds: 120) {
            ((try? String(contentsOfFile: stats, encoding: .utf8)) ?? "").contains("peak_rss_kb")
        }
        _ = try? app.tmux(["kill-session", "-t", name])
        return try AppRuns.parse(String(contentsOfFile: stats, encoding: .utf8))
    }
}
