import Foundation
import GRDB

/// The machine a run was made on, in words.
enum Machine {
    static func describe() -> String {
        let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuInfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last!.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        let memory =
            ((try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? "").split(separator: "\n")
            .first { $0.hasPrefix("MemTotal") }.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }.map {
                "\($0 / 1_048_576) GB"
            } ?? "?"
        var system = utsname()
        uname(&system)
        let kernel = withUnsafeBytes(of: &system.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let sqlite =
            (try? DatabaseQueue().read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") }) ?? nil
        return
            "\(ProcessInfo.processInfo.activeProcessorCount) × \(model), \(memory) RAM, Linux \(kernel), SQLite \(sqlite ?? "?"), release build"
    }
}

/// BENCHMARKS.md and the per-change plot, from one run's figures.
struct Report {
    struct Row {
        let teams: Int
        /// `worldcup generate` of the file that is then imported.
        let generated: ChildRun
        let imported: ChildRun
        /// The `sqlite3` shell's `.import` of the same rows as CSV into the same table and index.
        let shellImported: ChildRun
        let uncached: AppRuns.Session
        let cached: [AppRuns.Session]
        /// Searches typed character by character, then `n` and `N`: each key until `doupdate` returned.
        let search: AppRuns.SearchRun
        /// Filters typed character by character, then Esc.
        let filter: AppRuns.FilterRun
        let latency: ControllerLatency.Result

        /// Every key of every session: Enter, i.e. one +1 win, until `doupdate` returned.
        var flushed: Percentiles { Percentiles(([uncached] + cached).flatMap(\.keyMilliseconds)) }
        var cachedFirstFrame: Double { Percentiles(cached.map(\.firstFrameMilliseconds)).p50 }
    }

    /// What the search benchmark types: a common text ("a" matches most generated names), and a
    /// rare one, each letter rarer (at 1M generated teams: 393,077 names hold "u", 61,722 "um",
    /// 6,342 "uma", 1,068 "umar", 20 "umark", 6 "umarka").
    static let commonSearchText = "an"
    static let rareSearchText = "umarka"
    static let searchRounds = 5
    /// Rounds of the filter session, each filtering by both texts.
    static let filterRounds = 3

    /// Every typed letter and every `n` / `N` of the search session.
    static func searchKeys(_ search: AppRuns.SearchRun) -> [Double] { search.common + search.rare + search.steps }

    let machine: String
    let processStartMilliseconds: Double
    var rows: [Row] = []
    /// CPU time an idle scoreboard used: (teams, seconds idle, milliseconds of CPU).
    var idle: (teams: Int, seconds: UInt32, milliseconds: Double)?
    /// The controller's own work in instructions, at the smallest size (nil without valgrind).
    var instructionCounts: (teams: Int, counts: InstructionCounts)?
    /// The PostgreSQL controller, size by size.
    var postgreSQL: [PostgreSQLLatency.Result] = []
    /// The shared scoreboard across hosts, size by size.
    var sharedScoreboard: [SharedScoreboardRuns.Result] = []
    var serve: [ServeRuns.Result] = []
    /// `serve` for a thousand viewers beside N controllers on their own connections.
    var serveFanOut: [ServeFanOutRuns.Result] = []
    /// pgbench writers of a followed table, three ways (issue 46).
    var followedWriters: FollowedWriterRuns.Result?

    func markdown(plotPath: String) -> String {
        var text = """
            # Benchmarks

            Made by `make bench` (`worldcup-bench`), \(Self.today()), on \(machine).
            Every figure below comes from that one run; the peers run side by side in the same
            process, on the same store, one after the other.

            ## Method

            - **Stores**: `worldcup generate --teams N` (made-up names, some accented or in CJK script, 36
              zones, random wins), then `worldcup import` into a new store (its only teams: a new store takes the file instead of the seed).
            - **Per change** (in one process, on the imported store): a +1 win is one
              `UPDATE team SET wins = wins + 1` transaction on a random team. *Bare commit*: nothing
              observes it. *Ours*: a `FetchedResultsController` on SQLite over the scoreboard's request
              (three sort descriptors, sections by zone, batches of 100), the win written through the
              controller (`write(_:)`) — the time until its change callbacks have been delivered, which
              happens before the write returns. *ValueObservation
              + diff*: GRDB `ValueObservation` of the same ordered ids, then `difference(from:)` — the time
              until the diff is ready. *Full refetch*: the commit, then the ordered ids fetched again.
              Auto-checkpoints are off and a checkpoint runs every 100 writes outside the timed part
              (the app checkpoints on its idle tick). The expensive peers get fewer rounds at large N
              (`max(10, 20,000,000 / N)`). Every contender first runs a tenth of its rounds untimed;
              the bare commit, ours and GRDB's floor take turns in five blocks each (the controller
              stops following the store during the bare commit's blocks, and fetches again before
              its own). *GRDB's floor*: the bare commit while the controller follows the store (GRDB
              then runs its transaction observation around every statement), with the written row
              read back inside the transaction by one `Row.fetchOne` — what any controller on GRDB's
              observation and rows must add before its callbacks, before any work of its own.
            - **Scoreboard** (the real binary in a 100×40 tmux terminal, `--stats FILE`): *first frame*
              is from the start of the command's code to the first `doupdate`, plus the median time to run
              `worldcup --version` (\(String(format: "%.1f", processStartMilliseconds)) ms: process start,
              dynamic linking, argument parsing). *Uncached*: no cache file, the session whose load
              was the median of three; *cached*: the cache the previous session wrote (median of 3). *Flushed*: Enter pressed (a +1 win for the team under the
              cursor, which then moves) until `doupdate` returned, every key of the 4 sessions.
              *Peak memory*: the session's peak resident set (`getrusage`). *Idle*: the scoreboard left
              alone after a second's rest (its checkpoint and cache save done), user and system CPU time
              from `/proc/PID/stat` (10 ms ticks).
            - **Import**: `worldcup import FILE` as a child process: wall time and its peak resident set.

            ## Per change: +1 win → change known (ms)

            | teams | bare commit p50 / p99 | **ours** p50 / p99 | GRDB's floor p50 / p99 | ValueObservation + diff p50 / p99 | full refetch p50 / p99 | peer ÷ ours (p50) | ours ÷ bare (p50) | floor ÷ bare (p50) |
            |---:|---:|---:|---:|---:|---:|---:|---:|---:|

            """
        for row in rows {
            let l = row.latency
            text +=
                "| \(Self.count(row.teams)) | \(Self.pair(l.bare)) | **\(Self.pair(l.ours))** | \(Self.pair(l.grdbFloor)) | "
                + "\(Self.pair(l.valueObservation)) | \(Self.pair(l.refetch)) | "
                + "\(Self.ratio(l.valueObservation.p50 / l.ours.p50)) | \(Self.closeRatio(l.ours.p50 / l.bare.p50)) | "
                + "\(Self.closeRatio(l.grdbFloor.p50 / l.bare.p50)) |\n"
        }
        text += """

            ![Per-change cost against the number of teams](\(plotPath))

            ## Scoreboard and import

            The first frame shows the first teams; the rest load behind it, in steps a key waits for
            at most (with a valid cache, the steps read the cache file, a part each, and the last
            one takes every team from it). "All loaded" counts
            from the start of the command, like the first frame.

            | teams | first frame, uncached | first frame, cached | all loaded, uncached / cached | longest load step | flushed p50 / p99 (ms) | peak memory uncached / cached | generate | import | import peak memory | `sqlite3` `.import` (CSV) | ours ÷ shell |
            |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|

            """
        for row in rows {
            let uncached = row.uncached.firstFrameMilliseconds + processStartMilliseconds
            let cached = row.cachedFirstFrame + processStartMilliseconds
            func loaded(_ session: AppRuns.Session) -> String {
                session.allLoadedMilliseconds.map {
                    Self.ms($0 + processStartMilliseconds) + " ms (\(session.loadedFrom ?? "?"))"
                } ?? "at once"
            }
            let steps = ([row.uncached] + row.cached).flatMap(\.loadStepMilliseconds)
            text +=
                "| \(Self.count(row.teams)) | \(Self.ms(uncached)) ms | \(Self.ms(cached)) ms | "
                + "\(loaded(row.uncached)) / \(loaded(row.cached.last ?? row.uncached)) | \(steps.max().map { Self.ms($0) + " ms" } ?? "–") | "
                + "\(Self.pair(row.flushed)) | "
                + "\(row.uncached.peakKilobytes / 1024) / \((row.cached.map(\.peakKilobytes).max() ?? 0) / 1024) MB | "
                + "\(String(format: "%.2f", row.generated.seconds)) s | "
                + "\(String(format: "%.2f", row.imported.seconds)) s | \(row.imported.peakKilobytes / 1024) MB | "
                + "\(String(format: "%.2f", row.shellImported.seconds)) s | \(Self.ratio(row.imported.seconds / row.shellImported.seconds)) |\n"
        }
        text += """

            ### Search as you type

            The scoreboard, \(Self.searchRounds) rounds of: `/`, the common text "\(Self.commonSearchText)" typed
            one key at a time ("a", then "an"), Enter, 5 `n` and 5 `N`; `/`, the rare text
            "\(Self.rareSearchText)" typed one key at a time (at 1M teams: 393,077 names hold "u", 6 hold
            "umarka"), Enter, 3 `n` and 3 `N`. Keys 100 ms apart; each key until `doupdate` returned, in ms.
            The search reads the sort keys in memory; the exact count of the matches is made in steps
            between keys (*count step*: the longest, which a key may wait for).

            | teams | keys | p50 | p99 | max | longest count step |
            |---:|---|---:|---:|---:|---:|

            """
        for row in rows {
            let countStep = row.search.countSteps.max().map { Self.ms($0) } ?? "–"
            let groups = [
                ("\"\(Self.commonSearchText)\" typed (\(row.search.common.count) keys)", row.search.common),
                ("\"\(Self.rareSearchText)\" typed (\(row.search.rare.count) keys)", row.search.rare),
                ("`n` / `N` (\(row.search.steps.count) keys)", row.search.steps),
            ]
            for (label, keys) in groups {
                let percentiles = Percentiles(keys)
                text +=
                    "| \(Self.count(row.teams)) | \(label) | \(Self.ms(percentiles.p50)) | "
                    + "\(Self.ms(percentiles.p99)) | \(Self.ms(keys.max() ?? .nan)) | \(countStep) |\n"
            }
        }
        let searchPeaks = rows.map { "\($0.search.peakKilobytes / 1024) MB at \(Self.count($0.teams))" }
        text += "\nPeak memory of the search sessions: " + searchPeaks.joined(separator: ", ") + ".\n"
        text += """

            ### Filter as you type

            The scoreboard, \(Self.filterRounds) rounds of: `\\`, the common text "\(Self.commonSearchText)" typed one
            key at a time, Enter, Esc a second later (every team again); the same with the rare text
            "\(Self.rareSearchText)". Each key is sent once the list shows the one before. *A change of the list*: the controller's request
            changed to the text typed so far (`setFetchRequest`: one change set from the old list to the
            new one, applied to the table), which a key typed after it waits for, its frame not counted;
            *Esc*: the key until `doupdate` returned, every team back. In ms.

            | teams | what | p50 | p99 | max |
            |---:|---|---:|---:|---:|

            """
        for row in rows {
            for (label, times) in [
                ("a change of the list (\(row.filter.steps.count))", row.filter.steps),
                ("Esc (\(row.filter.clears.count))", row.filter.clears),
            ] {
                let percentiles = Percentiles(times)
                text +=
                    "| \(Self.count(row.teams)) | \(label) | \(Self.ms(percentiles.p50)) | "
                    + "\(Self.ms(percentiles.p99)) | \(Self.ms(times.max() ?? .nan)) |\n"
            }
        }
        if let idle {
            text +=
                "\nIdle: a scoreboard on \(Self.count(idle.teams)) teams used \(Self.ms(idle.milliseconds)) ms of CPU "
                + "in \(idle.seconds) s (it sleeps until a key or a commit to the store).\n"
        }
        text += postgreSQLSection()
        text += sharedScoreboardSection()
        text += serveSection()
        text += serveFanOutSection()
        text += followedWritersSection()
        text += targets()
        return text
    }

    /// The PostgreSQL controller's figures and its targets (issue 13).
    private func postgreSQLSection() -> String {
        guard !postgreSQL.isEmpty else { return "" }
        var text = """

            ## PostgreSQL: +1 win by another connection → change known (ms)

            A throw-away PostgreSQL server on this machine (Unix socket), N teams made by the server, the
            scoreboard's request on a `FetchedResultsController` on PostgreSQL (sections by zone, batches of 100).
            *Bare commit*: the `UPDATE` alone, autocommit, from another connection. *Ours*: the commit and
            its announcement (`PostgreSQLChangeFeed.announce(in:)`, as the app's writes do), then the
            controller's socket turns readable (`poll`), then `processPendingChanges()` reads the feed
            and the touched row and delivers the callbacks.
            *Refetch + diff*: the commit, then the ordered ids fetched again and diffed with the last ones.
            *First fetch*: `performFetch()` (ids and sort keys through a cursor; rows load by batch), and
            how much the process's resident memory grew at its peak during it (the controller's own
            memory, with libpq's); *cached*: a second controller's fetch from the cache file the first
            one saved (`saveCache()`), then what the feed names since; *first 1,000 rows*: a progressive
            fetch's start, `performFetch(firstRows: 1000)`, what the scoreboard shows first; *the rest
            loaded*: that fetch's `loadMoreRows()` (steps of the library's default size) until every row
            is held, without a cache, and its longest step.
            The table has a covering index in the request's order (`INCLUDE` the text columns), which the
            first fetch and the refetch both use.

            | teams | first fetch (memory) | cached fetch (memory) | first 1,000 rows | the rest loaded (longest step) | bare commit p50 / p99 | **ours** p50 / p99 | refetch + diff p50 / p99 | refetch ÷ ours (p50) | ours ÷ bare (p50) |
            |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|

            """
        for row in postgreSQL {
            text +=
                "| \(Self.count(row.teams)) | \(Self.ms(row.firstFetchSeconds * 1000)) ms (\(row.firstFetchPeakMegabytes) MB) | "
                + "\(Self.ms(row.cachedFetchSeconds * 1000)) ms (\(row.cachedFetchPeakMegabytes) MB) | "
                + "\(Self.ms(row.firstRowsSeconds * 1000)) ms | "
                + "\(Self.ms(row.loadRestSeconds * 1000)) ms (\(Self.ms(row.longestLoadStepMilliseconds)) ms) | "
                + "\(Self.pair(row.bare)) | **\(Self.pair(row.ours))** | \(Self.pair(row.refetch)) | "
                + "\(Self.ratio(row.refetch.p50 / row.ours.p50)) | \(Self.ratio(row.ours.p50 / row.bare.p50)) |\n"
        }
        return text
    }

    /// The shared scoreboard across hosts (issue 14).
    private func sharedScoreboardSection() -> String {
        guard !sharedScoreboard.isEmpty else { return "" }
        var text = """

            ## Shared scoreboard: a win on one host → another host's screen (ms)

            Three network namespaces on this machine, joined by veth pairs: a PostgreSQL server in one, the
            release binary's scoreboard in a 100×40 tmux terminal in each of the two others, over TCP.
            N teams: the seed by `worldcup`, the rest made by the server. *Win → other screen*: one
            scoreboard presses Enter (a +1 win) every 60 ms; from the key's arrival (so the win's own
            commit is included) to the other scoreboard's flushed frame showing it (both `--stats`, on
            the machine's monotonic clock). *First frame*: the
            scoreboard's own figure (process start to first flushed frame), over the network, without a
            cache (each figure the median of three sessions) and with the one the previous
            session saved; *all loaded*: every team loaded behind it (with the cache, from the cache
            file, read a part per step). *Plain full fetch*: the scoreboard's own standings
            controller, `performFetch()` of every team at once, on a host over the same network
            (median of three): what the load behind the first frame is held to.

            | teams | first frame, no cache | first frame, cached | all loaded, no cache / cached | plain full fetch | win → other screen p50 / p99 | wins |
            |---:|---:|---:|---:|---:|---:|---:|

            """
        for row in sharedScoreboard {
            let loaded = [row.uncachedAllLoadedMilliseconds, row.cachedAllLoadedMilliseconds].map {
                $0.map(Self.ms) ?? "at once"
            }
            text +=
                "| \(Self.count(row.teams)) | \(Self.ms(row.uncachedFirstFrameMilliseconds)) | "
                + "\(Self.ms(row.cachedFirstFrameMilliseconds)) | \(loaded.joined(separator: " / ")) | "
                + "\(Self.ms(row.fullFetchMilliseconds)) | **\(Self.pair(row.winToOtherScreen))** | "
                + "\(row.winToOtherScreen.count) |\n"
        }
        return text
    }

    /// `worldcup serve` in a browser (issue 25).
    private func serveSection() -> String {
        guard !serve.isEmpty else { return "" }
        var text = """

            ## Serve: a win → a browser's DOM (ms)

            The release binary's `worldcup serve` on the SQLite store, headless Chromium through
            chromedriver, on this machine. *Commit → DOM*: this process commits a +1 win (the statement
            `worldcup win` runs) and takes the time after its `COMMIT`; the page reports when it had
            applied the change set to its DOM (both on the machine's wall clock). *Tap → DOM*: a click
            on a row of the scorer page (WebDriver), from the page's tap handler to the DOM updated by
            the change set that came back (the request, the commit, the event). *First paint*: the
            browser's first contentful paint of `/`, from navigation start (five loads); *snapshot
            held*: until the page held its snapshot (every row serve held then; at a big size serve is
            still loading the rest behind, and the wins are committed meanwhile, right after the loads).

            | teams | first paint p50 | snapshot held p50 | commit → DOM p50 / p99 | tap → DOM p50 / p99 | wins |
            |---:|---:|---:|---:|---:|---:|

            """
        for row in serve {
            text +=
                "| \(Self.count(row.teams)) | \(Self.ms(row.firstPaint.p50)) | \(Self.ms(row.snapshotHeld.p50)) | "
                + "**\(Self.pair(row.commitToDOM))** | \(Self.pair(row.tapToDOM)) | \(row.commitToDOM.count) |\n"
        }
        return text
    }

    /// The figures SPEC §6 sets, against this run: each figure, today's value, the target and
    /// whether this run meets it.
    private func targets() -> String {
        guard let big = rows.max(by: { $0.teams < $1.teams }) else { return "" }
        let n = Self.count(big.teams)
        let sizes = rows.sorted { $0.teams < $1.teams }
        func line(_ figure: String, _ today: String, _ target: String, _ met: Bool) -> String {
            "| \(figure) | \(today) | \(target) | \(met ? "met" : "**not met**") |\n"
        }
        var text = """

            ## Against the targets (SPEC §6)

            At \(n) teams unless said. *Load behind the first frame*: from the first frame to every
            team loaded (the median of three uncached sessions), against one plain `performFetch()` of the same request on a
            new controller in the benchmark's process (median of three), same store, same run.

            | figure | today | target | met? |
            |---|---:|---:|---|

            """
        let ratios = sizes.map { Self.closeRatio($0.latency.ours.p50 / $0.latency.grdbFloor.p50) }
        let bare = sizes.map { Self.closeRatio($0.latency.ours.p50 / $0.latency.bare.p50) }
        text += line(
            "SQLite: callbacks ÷ GRDB's floor (p50), at " + sizes.map { Self.count($0.teams) }.joined(separator: " / "),
            ratios.joined(separator: " / ") + " (÷ the bare commit: " + bare.joined(separator: " / ") + ")",
            "≤ 1.2× at every size",
            sizes.allSatisfy { $0.latency.ours.p50 <= 1.2 * $0.latency.grdbFloor.p50 })
        if let counts = instructionCounts {
            text += line(
                "SQLite: the controller's own work per one-row change (callgrind, \(Self.count(counts.teams)) teams)",
                String(
                    format: "%.1fk instructions (ours %.1fk − GRDB's floor %.1fk, per win over %d wins)",
                    counts.counts.own / 1000, counts.counts.ours / 1000, counts.counts.floor / 1000,
                    counts.counts.rounds),
                "≤ 40k", counts.counts.own <= 40_000)
        }
        let latency = big.latency
        text += line(
            "SQLite: `ValueObservation` + diff ÷ callbacks (p50)",
            Self.ratio(latency.valueObservation.p50 / latency.ours.p50),
            "≥ 500×", latency.valueObservation.p50 >= 500 * latency.ours.p50)
        text += line(
            "Enter → `doupdate` returned, p99", Self.ms(big.flushed.p99) + " ms", "≤ 5 ms",
            big.flushed.p99 <= 5)
        let searchKeys = Percentiles(Self.searchKeys(big.search))
        text += line(
            "search as you type (and `n` / `N`), p99 per key", Self.ms(searchKeys.p99) + " ms", "≤ 16 ms",
            searchKeys.p99 <= 16)
        let filterSteps = Percentiles(big.filter.steps + big.filter.clears)
        text += line(
            "filter as you type (and Esc), p99 per change of the list; the filter session's peak memory",
            Self.ms(filterSteps.p99) + " ms, \(big.filter.peakKilobytes / 1024) MB", "≤ 16 ms, ≤ 64 MB",
            filterSteps.p99 <= 16 && big.filter.peakKilobytes / 1024 <= 64)
        // Any size, with or without a cache: the slowest of every session.
        let launches = sizes.flatMap { row in
            [row.uncached.firstFrameMilliseconds, row.cachedFirstFrame].map { $0 + processStartMilliseconds }
        }
        let slowestLaunch = launches.max() ?? .nan
        text += line(
            "first frame, process start included, slowest of every size with and without a cache",
            Self.ms(slowestLaunch) + " ms", "≤ 25 ms", slowestLaunch <= 25)
        if let loaded = big.uncached.allLoadedMilliseconds {
            let behind = loaded - big.uncached.firstFrameMilliseconds, plain = latency.fetchSeconds * 1000
            text += line(
                "load behind the first frame, all teams, no cache (plain `performFetch()`: "
                    + "\(Self.ms(plain)) ms)", Self.times(behind, plain), "≤ 1.2×", behind <= 1.2 * plain)
        }
        // A cached session's steps read the cache file and take every team from it: shown apart.
        let storeStep = sizes.flatMap(\.uncached.loadStepMilliseconds).max() ?? 0
        let cacheStep = sizes.flatMap { $0.cached.flatMap(\.loadStepMilliseconds) }.max() ?? 0
        text += line(
            "longest load step (until `doupdate` returned), every size: from the store / from the cache file",
            Self.ms(storeStep) + " / " + Self.ms(cacheStep) + " ms", "≤ 16 ms", max(storeStep, cacheStep) <= 16)
        let sessionPeaks = ([big.uncached] + big.cached).map(\.peakKilobytes) + [big.search.peakKilobytes]
        let peak = (sessionPeaks.max() ?? 0) / 1024
        text += line(
            "peak memory of the scoreboard (every session but the filter's)", "\(peak) MB", "≤ 64 MB", peak <= 64)
        text += line(
            "import ÷ the sqlite3 shell's CSV import; import peak memory",
            Self.ratio(big.imported.seconds / big.shellImported.seconds) + ", \(big.imported.peakKilobytes / 1024) MB",
            "≤ 0.8×, ≤ 150 MB",
            big.imported.seconds <= 0.8 * big.shellImported.seconds && big.imported.peakKilobytes <= 150 * 1024)
        text += line(
            "`generate --teams \(big.teams)`", String(format: "%.2f s", big.generated.seconds), "≤ 1.0 s",
            big.generated.seconds <= 1.0)
        if let server = postgreSQL.max(by: { $0.teams < $1.teams }) {
            let m = Self.count(server.teams)
            text += line(
                "PostgreSQL, \(m): a win elsewhere → callbacks p50 / p99", Self.pair(server.ours) + " ms",
                "≤ 0.8 / 1.5 ms", server.ours.p50 <= 0.8 && server.ours.p99 <= 1.5)
            text += line(
                "PostgreSQL, \(m): refetch + diff ÷ callbacks (p50)",
                Self.ratio(server.refetch.p50 / server.ours.p50), "≥ 100×", server.refetch.p50 >= 100 * server.ours.p50)
            let rest = server.loadRestSeconds * 1000, full = server.firstFetchSeconds * 1000
            text += line(
                "PostgreSQL, \(m): all rows loaded behind the first 1,000, Unix socket (full first fetch: "
                    + "\(Self.ms(full)) ms)", Self.times(rest, full), "≤ 1.5×", rest <= 1.5 * full)
        }
        if let shared = sharedScoreboard.max(by: { $0.teams < $1.teams }) {
            let m = Self.count(shared.teams)
            if let loaded = shared.uncachedAllLoadedMilliseconds {
                let behind = loaded - shared.uncachedFirstFrameMilliseconds, full = shared.fullFetchMilliseconds
                text += line(
                    "PostgreSQL, \(m): the scoreboard's load behind its first frame, over TCP (its controller's "
                        + "plain full fetch over TCP: \(Self.ms(full)) ms)", Self.times(behind, full), "≤ 1.5×",
                    behind <= 1.5 * full)
            }
            text += line(
                "win on one host → the other host's screen flushed, p99, at \(m)",
                Self.ms(shared.winToOtherScreen.p99) + " ms", "≤ 50 ms", shared.winToOtherScreen.p99 <= 50)
        }
        if let served = serve.max(by: { $0.teams < $1.teams }) {
            text += line(
                "serve: commit → a browser's DOM, p99, at \(Self.count(served.teams))",
                Self.ms(served.commitToDOM.p99) + " ms", "≤ 50 ms", served.commitToDOM.p99 <= 50)
            text += line(
                "serve: first paint, p50, at \(Self.count(served.teams))",
                Self.ms(served.firstPaint.p50) + " ms", "≤ 200 ms", served.firstPaint.p50 <= 200)
        }
        text += serveFanOutTargets(line)
        text += """

            The bytes written to the terminal per +1 win (SPEC: ≤ 64 when the team stays, ≤ 300 when
            it moves) do not vary with the machine; the end-to-end test `bytesWrittenPerWin` checks
            them in a real terminal at 80 and 200 columns: 36 / 172 and 37 / 177 bytes with
            `TERM=xterm-256color`, 23 / 246 at 80 columns with `TERM=screen` (a terminal type that
            cannot erase in colour is sent every cell of the moving bar: 487 bytes at 200 columns).

            Where an import's time goes (measured apart from this run, on the same machine, with
            `perf` and timestamps): reading the 100 MB file with RapidJSON's streaming reader and the
            seed checks takes about 1 s; appending the rows about 3 s (the `sqlite3` shell takes 2.9 s
            to load the same CSV into the table without indexes); building the case-insensitive unique
            name index and the standings index at the end about 2.7 s, sorted by SQLite's sorter
            threads side by side (3.6 s in one thread); the commit and closing about 0.6 s. The
            shell's `.import` keeps both indexes ordered row by row, in the file's order.

            """
        return text
    }

    /// Per-change p50 against the number of teams, both axes logarithmic.
    func svg() -> String {
        let series: [(String, String, (Row) -> Double)] = [
            ("ours (callbacks delivered)", "#1b7837", { $0.latency.ours.p50 }),
            ("ValueObservation + diff", "#b2182b", { $0.latency.valueObservation.p50 }),
            ("full refetch", "#ef8a62", { $0.latency.refetch.p50 }),
            ("bare commit", "#777777", { $0.latency.bare.p50 }),
        ]
        let (width, height, left, right, top, bottom) = (640.0, 400.0, 70.0, 20.0, 30.0, 50.0)
        let sorted = rows.sorted { $0.teams < $1.teams }
        let values = sorted.flatMap { row in series.map { $0.2(row) } }.filter { $0 > 0 }
        let (xMin, xMax) = (log10(Double(sorted.first?.teams ?? 1)), log10(Double(sorted.last?.teams ?? 10)))
        let (yMin, yMax) = (floor(log10(values.min() ?? 0.01)), ceil(log10(values.max() ?? 1)))
        func x(_ teams: Int) -> Double {
            left + (log10(Double(teams)) - xMin) / max(xMax - xMin, 1e-9) * (width - left - right)
        }
        func y(_ ms: Double) -> Double { top + (yMax - log10(ms)) / max(yMax - yMin, 1e-9) * (height - top - bottom) }
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(width / 2)" y="18" text-anchor="middle" font-size="14">+1 win: time until the change is known (p50, ms; log scales)</text>

            """
        for exponent in Int(yMin)...Int(yMax) {
            let ms = pow(10, Double(exponent))
            svg += "<line x1=\"\(left)\" x2=\"\(width - right)\" y1=\"\(y(ms))\" y2=\"\(y(ms))\" stroke=\"#ddd\"/>"
            svg += "<text x=\"\(left - 6)\" y=\"\(y(ms) + 4)\" text-anchor=\"end\">\(Self.tick(ms))</text>\n"
        }
        for row in sorted {
            svg +=
                "<text x=\"\(x(row.teams))\" y=\"\(height - bottom + 18)\" text-anchor=\"middle\">\(Self.count(row.teams))</text>\n"
        }
        svg += "<text x=\"\(width / 2)\" y=\"\(height - 10)\" text-anchor=\"middle\">teams in the store</text>\n"
        for (index, (name, color, value)) in series.enumerated() {
            let points = sorted.map { "\(x($0.teams)),\(y(value($0)))" }.joined(separator: " ")
            svg += "<polyline points=\"\(points)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2.5\"/>\n"
            for row in sorted {
                svg += "<circle cx=\"\(x(row.teams))\" cy=\"\(y(value(row)))\" r=\"3.5\" fill=\"\(color)\"/>\n"
            }
            let legendY = top + 14 + Double(index) * 16
            svg +=
                "<line x1=\"\(left + 12)\" x2=\"\(left + 36)\" y1=\"\(legendY - 4)\" y2=\"\(legendY - 4)\" stroke=\"\(color)\" stroke-width=\"2.5\"/>"
            svg += "<text x=\"\(left + 42)\" y=\"\(legendY)\">\(name)</text>\n"
        }
        return svg + "</svg>\n"
    }

    /// "1562 ms = 1.43×": a time and its ratio to the one it is held to.
    static func times(_ value: Double, _ reference: Double) -> String {
        "\(ms(value)) ms = " + String(format: "%.2f×", value / reference)
    }
    static func pair(_ percentiles: Percentiles) -> String { "\(ms(percentiles.p50)) / \(ms(percentiles.p99))" }
    static func ms(_ value: Double) -> String { String(format: value < 10 ? "%.2f" : "%.0f", value) }
    static func ratio(_ value: Double) -> String { String(format: value < 10 ? "%.1f×" : "%.0f×", value) }
    /// A ratio held to a bound near 1 (1.2×), where the second decimal decides.
    static func closeRatio(_ value: Double) -> String { String(format: "%.2f×", value) }
    static func count(_ teams: Int) -> String {
        teams >= 1_000_000 ? "\(teams / 1_000_000)M" : teams >= 1000 ? "\(teams / 1000)k" : String(teams)
    }
    private static func tick(_ ms: Double) -> String { ms >= 1 ? String(format: "%.0f", ms) : String(format: "%g", ms) }
    private static func today() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }
}
