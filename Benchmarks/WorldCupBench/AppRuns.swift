import Foundation
import TestSupport

/// The real `worldcup` binary at work: generating and importing a store, and scoreboard
/// sessions in a real terminal (tmux) that report their own timings through `--stats`.
struct AppRuns {
    let worldcup: String
    let folder: String
    private let socket = "worldcup-bench-\(getpid())"

    struct Session {
        var firstFrameMilliseconds: Double
        var source: String
        var keyMilliseconds: [Double]
        var peakKilobytes: Int
        /// When the key of each win this session committed arrived, and when each frame that
        /// showed others' changes was flushed, on the machine's monotonic clock (ms).
        var winKeysAt: [Double] = []
        var externalFramesAt: [Double] = []
        /// When every team was loaded behind the first frame (from the start, ms), and from
        /// where; nil when the first fetch held them all.
        var allLoadedMilliseconds: Double?
        var loadedFrom: String?
        /// Each step of that load, until `doupdate` returned (ms): the longest a key waits.
        var loadStepMilliseconds: [Double] = []
        /// Each step of a search's count between keys, until `doupdate` returned (ms).
        var searchStepMilliseconds: [Double] = []
        /// Each change of the list to a filter's typed text (ms).
        var filterStepMilliseconds: [Double] = []
    }

    /// A filter session's times (ms).
    struct FilterRun {
        /// Each change of the list to the text typed so far: what a key typed after it waits for.
        var steps: [Double] = []
        /// Esc, which shows every team again: the key until `doupdate` returned.
        var clears: [Double] = []
        var peakKilobytes = 0
    }

    /// A search session's key times (until `doupdate` returned, ms), by what the keys did.
    struct SearchRun {
        /// The letters of the common text, one key each.
        var common: [Double] = []
        /// The letters of the rare text, one key each.
        var rare: [Double] = []
        /// `n` and `N` after each search.
        var steps: [Double] = []
        /// The steps of the count between keys: the longest a key can wait for one.
        var countSteps: [Double] = []
        var peakKilobytes = 0
    }

    func generate(teams: Int, to path: String) throws -> ChildRun {
        let run = try runChild([worldcup, "generate", "--teams", String(teams), "--output", path])
        guard run.status == 0 else { throw BenchError("worldcup generate failed (status \(run.status))") }
        return run
    }

    func importTeams(from json: String, into store: String) throws -> ChildRun {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        let run = try runChild([worldcup, "import", json, "--db", store])
        guard run.status == 0 else { throw BenchError("worldcup import failed (status \(run.status))") }
        return run
    }

    /// The peer of our import: the `sqlite3` shell's own `.import` of the same rows in the same
    /// order (the ids follow the file), as CSV, into a new file with the same table and standings
    /// index as `store` (its schema is copied from there) and the same journal mode. Only the
    /// `.import` is timed.
    func shellImport(sameRowsAs store: String) throws -> ChildRun {
        let csv = folder + "/rows.csv", peer = folder + "/shell-import.sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: peer + suffix) }
        func shell(_ command: String) throws {
            guard system(command) == 0 else { throw BenchError("failed: \(command)") }
        }
        try shell(
            "sqlite3 -csv '\(store)' 'SELECT id, teamName, qualifyingZone, imageName, wins"
                + " FROM team ORDER BY id' > '\(csv)'")
        try shell(
            "sqlite3 '\(store)' \"SELECT sql || ';' FROM sqlite_master"
                + " WHERE name IN ('team', 'team_name', 'team_standings') ORDER BY type DESC\""
                + " | sqlite3 '\(peer)' && sqlite3 '\(peer)' 'PRAGMA journal_mode = WAL' >/dev/null")
        defer { try? FileManager.default.removeItem(atPath: csv) }
        let run = try runChild(["/usr/bin/sqlite3", peer, ".mode csv", ".import '\(csv)' team"])
        guard run.status == 0 else { throw BenchError("sqlite3 .import failed (status \(run.status))") }
        return run
    }

    /// The median time from starting the process to the end of a command that does nothing
    /// (`--version`): what a launch costs before the program's own code runs.
    func processStartMilliseconds() throws -> Double {
        Percentiles(try (0..<11).map { _ in try runChild([worldcup, "--version"]).seconds * 1000 }).p50
    }

    /// Opens the scoreboard in a 100×40 tmux terminal, presses Enter `keys` times (each a +1 win
    /// for the team under the cursor), quits, and reads the session's figures.
    func session(store: String, cacheHome: String, keys: Int) throws -> Session {
        let stats = folder + "/stats-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: stats) }
        try startScoreboard(store: store, cacheHome: cacheHome, options: ["--stats", stats])
        defer { _ = try? tmux(["kill-server"]) }
        for _ in 0..<keys {
            try tmux(["send-keys", "-t", "bench", "Enter"])
            usleep(20_000)
        }
        usleep(300_000)
        return try quitAndReadStats(stats)
    }

    /// Opens the scoreboard and, `rounds` times: `/`, the common text typed one key at a time,
    /// Enter, `n` and `N` five times each; then the same with the rare text and three `n` and
    /// `N` each; then quits (no Esc: after a search that found nothing, Esc would quit). Keys go
    /// 100 ms apart, so the count of a search's matches runs between them, as when a person types.
    func searchSession(
        store: String, cacheHome: String, common: String, rare: String, rounds: Int
    ) throws -> SearchRun {
        enum Kind { case common, rare, step, other }
        var keys: [(key: String, kind: Kind)] = []
        for _ in 0..<rounds {
            for (text, kind, steps) in [(common, Kind.common, 5), (rare, Kind.rare, 3)] {
                keys += [("/", .other)] + text.map { (String($0), kind) } + [("Enter", .other)]
                keys += Array(repeating: ("n", Kind.step), count: steps)
                keys += Array(repeating: ("N", Kind.step), count: steps)
            }
        }
        let stats = folder + "/stats-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: stats) }
        try startScoreboard(store: store, cacheHome: cacheHome, options: ["--stats", stats])
        defer { _ = try? tmux(["kill-server"]) }
        for (key, _) in keys {
            try tmux(["send-keys", "-t", "bench"] + (key.count == 1 ? ["-l", key] : [key]))
            usleep(100_000)
        }
        usleep(300_000)
        let session = try quitAndReadStats(stats)
        // One frame per key sent (q, which quits, draws none).
        guard session.keyMilliseconds.count == keys.count else {
            throw BenchError("search session: \(keys.count) keys sent, \(session.keyMilliseconds.count) frames")
        }
        var run = SearchRun(countSteps: session.searchStepMilliseconds, peakKilobytes: session.peakKilobytes)
        for ((_, kind), milliseconds) in zip(keys, session.keyMilliseconds) {
            switch kind {
            case .common: run.common.append(milliseconds)
            case .rare: run.rare.append(milliseconds)
            case .step: run.steps.append(milliseconds)
            case .other: break
            }
        }
        return run
    }

    /// Opens the scoreboard and, `rounds` times for each of `texts`: `\`, the text typed one key
    /// at a time, Enter and Esc (every team again); then quits. Each key is sent once the list
    /// shows what the one before asked for (the title names the filter), so that a slow change
    /// of the list never has keys pile up behind it.
    func filterSession(store: String, cacheHome: String, texts: [String], rounds: Int) throws -> FilterRun {
        let stats = folder + "/stats-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: stats) }
        try startScoreboard(store: store, cacheHome: cacheHome, options: ["--stats", stats])
        defer { _ = try? tmux(["kill-server"]) }
        func title() -> String {
            (try? tmux(["capture-pane", "-p", "-t", "bench"]))?.split(separator: "\n").first.map(String.init) ?? ""
        }
        // Where each Esc falls among the keys, each of which draws one frame.
        var escapes: [Int] = []
        var keys = 0
        func send(_ key: String, literally: Bool = true, until shown: @escaping (String) -> Bool) throws {
            try tmux(["send-keys", "-t", "bench"] + (literally ? ["-l", key] : [key]))
            keys += 1
            try waitUntil(seconds: 120, pause: 20_000) { shown(title()) }
            usleep(100_000)
        }
        for _ in 0..<rounds {
            for text in texts {
                try send("\\") { _ in true }
                var typed = ""
                for letter in text {
                    typed.append(letter)
                    try send(String(letter)) { [typed] in $0.contains("containing “\(typed)”") }
                }
                try send("Enter", literally: false) { _ in true }
                escapes.append(keys)
                try send("Escape", literally: false) { !$0.contains("containing") }
            }
        }
        let session = try quitAndReadStats(stats)
        guard session.keyMilliseconds.count == keys else {
            throw BenchError("filter session: \(keys) keys sent, \(session.keyMilliseconds.count) frames")
        }
        return FilterRun(
            steps: session.filterStepMilliseconds, clears: escapes.map { session.keyMilliseconds[$0] },
            peakKilobytes: session.peakKilobytes)
    }

    /// Quits the scoreboard (`q`) and reads the stats file it writes on its way out, once it has
    /// also closed the store: the store is opened next by another program, and on a busy machine
    /// the last connection's checkpoint still held the lock.
    private func quitAndReadStats(_ stats: String) throws -> Session {
        try tmux(["send-keys", "-t", "bench", "q"])
        try waitUntil(seconds: 120) {
            FileManager.default.fileExists(atPath: stats)
                && ((try? String(contentsOfFile: stats, encoding: .utf8)) ?? "").contains("peak_rss_kb")
        }
        try waitUntil(seconds: 120, pause: 50_000) { (try? tmux(["has-session", "-t", "bench"])) == nil }
        return try Self.parse(String(contentsOfFile: stats, encoding: .utf8))
    }

    /// The CPU time (user and system, in ms) an idle scoreboard uses in `seconds`, counted from
    /// /proc once it has rested long enough to have checkpointed and saved its cache.
    func idleCPUMilliseconds(store: String, cacheHome: String, seconds: UInt32) throws -> Double {
        try startScoreboard(store: store, cacheHome: cacheHome, options: [])
        defer { _ = try? tmux(["kill-server"]) }
        sleep(2)
        let pid = try tmux(["display-message", "-p", "-t", "bench", "#{pane_pid}"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard let process = pid_t(pid) else { throw BenchError("no scoreboard process in tmux: \(pid)") }
        let before = ProcessUsage.cpuMilliseconds(process)
        sleep(seconds)
        let after = ProcessUsage.cpuMilliseconds(process)
        try tmux(["send-keys", "-t", "bench", "q"])
        return after - before
    }

    /// Opens the scoreboard in a 100×40 tmux terminal and waits for its first frame, then for
    /// every team to be loaded behind it.
    ///
    /// - Parameters:
    ///   - session: the tmux session's name.
    ///   - launcher: words before the command (`ip netns exec HOST`, to run it on a host).
    func startScoreboard(
        store: String, cacheHome: String, options: [String], session: String = "bench", launcher: [String] = []
    ) throws {
        let command =
            launcher + ["env", "LANG=C.UTF-8", "TERM=screen", "XDG_CACHE_HOME=\(cacheHome)", worldcup, "--db", store]
            + options
        // The previous session's server may still be shutting down: try again a few times.
        var attempts = 0
        while true {
            do {
                try tmux(["new-session", "-d", "-s", session, "-x", "100", "-y", "40"] + command)
                break
            } catch  where attempts < 10 {
                attempts += 1
                usleep(200_000)
            }
        }
        try waitUntil(seconds: 120) {
            (try? tmux(["capture-pane", "-p", "-t", session]))?.contains("World Cup") == true
        }
        // Keys are measured on loaded standings, and a session that quits loaded saves its cache.
        // Seldom: each look starts a tmux client, which would slow the load it waits for.
        try waitUntil(seconds: 120, pause: 200_000) {
            (try? tmux(["capture-pane", "-p", "-t", session]))?.contains("loading the standings") == false
        }
    }

    static func parse(_ text: String) throws -> Session {
        var session = Session(firstFrameMilliseconds: .nan, source: "?", keyMilliseconds: [], peakKilobytes: 0)
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "first_frame_ms": session.firstFrameMilliseconds = Double(parts[1]) ?? .nan
            case "fetch_source": session.source = parts[1]
            case "key_to_flush_ms": session.keyMilliseconds.append(Double(parts[1]) ?? .nan)
            case "peak_rss_kb": session.peakKilobytes = Int(parts[1]) ?? 0
            case "win_key_at_ms": session.winKeysAt.append(Double(parts[1]) ?? .nan)
            case "external_frame_at_ms": session.externalFramesAt.append(Double(parts[1]) ?? .nan)
            case "all_loaded_ms": session.allLoadedMilliseconds = Double(parts[1])
            case "loaded_from": session.loadedFrom = parts[1]
            case "load_step_ms": session.loadStepMilliseconds.append(Double(parts[1]) ?? .nan)
            case "search_step_ms": session.searchStepMilliseconds.append(Double(parts[1]) ?? .nan)
            case "filter_step_ms": session.filterStepMilliseconds.append(Double(parts[1]) ?? .nan)
            default: break
            }
        }
        return session
    }

    /// Runs tmux on a private server, through the shell: a command that starts the server must
    /// not be waited on through a pipe the daemonised server would keep open.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let quoted = (["tmux", "-L", socket, "-f", "/dev/null"] + arguments)
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let output = folder + "/tmux-output.txt"
        guard system(quoted + " </dev/null >'\(output)' 2>/dev/null") == 0 || arguments.first == "kill-server" else {
            throw BenchError("tmux \(arguments.first ?? "") failed")
        }
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    func waitUntil(seconds: Double, pause: useconds_t = 5_000, _ condition: () -> Bool) throws {
        let start = Clock.now()
        while !condition() {
            guard Clock.milliseconds(since: start) < seconds * 1000 else {
                throw BenchError("timed out waiting for the scoreboard")
            }
            usleep(pause)
        }
    }
}
