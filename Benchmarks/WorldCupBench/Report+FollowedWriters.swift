/// Writers of a followed PostgreSQL table, pgbench (issue 46).
extension Report {
    func followedWritersSection() -> String {
        guard let run = followedWriters else { return "" }
        var text = """

            ## Writers of a followed table: pgbench, fsync on

            A throw-away PostgreSQL server on this machine with PostgreSQL's defaults (`fsync` on,
            `synchronous_commit` on; Unix socket; `max_connections` 100) but `wal_level` logical (for
            every mode, so that the decoding mode can run), a store of \(Self.count(run.teams)) teams
            that the release binary made. pgbench (PostgreSQL's own, `-M prepared`, two threads), each
            transaction `UPDATE team SET wins = wins + 1 WHERE id = random`, for \(run.seconds) s per run;
            \(run.rounds) rounds, each running the \(FollowedWriterRuns.Mode.allCases.count) modes in turn, so that the machine's drift falls
            on all alike. *No triggers*: the table as if nobody followed it. *Change feed, nobody
            following*: the feed's triggers alone, the followers paused — what writers pay when the
            screens run on other machines. *Logical decoding, no triggers*: instead of triggers,
            PostgreSQL's logical decoding streams the table's changes (`pgoutput`, through a slot
            made for the run) to `pg_recvlogical`, which throws them away, on the followers' core;
            the followers paused — the least any feed read from the server's change stream would
            cost writers, before a follower used it. *Change feed, one follower*: the feed as shipped, one
            follower following, the others paused (a screen on a machine of its own). *Change feed*:
            the feed as shipped (a history row per changed row; no `NOTIFY`), every follower
            following. *Old NOTIFY triggers*: the
            feed before issue 46, for the record (the key read through `to_jsonb(OLD)`, and a statement
            trigger that `NOTIFY`s: a notifying commit holds a lock for the whole cluster through its
            WAL flush). Meanwhile \(run.followers) results controllers follow the table, as `serve` and ten
            terminal scoreboards do (the scoreboard's request, each on its own thread and connection,
            looking on the store's default pace). *tps*: the median run (and the range); *latency*:
            every transaction of the mode's runs, as pgbench logged it (`-l`); *CPU per transaction*
            (medians of the runs): the server's (every PostgreSQL process) and the followers' own (the
            benchmark's process: eleven controllers applying the changes, and the probe below).
            \(placementSentence(run.placement))

            | writers | mode | tps median (range) | latency p50 / p99 (ms) | tps ÷ no triggers | CPU per transaction: server / followers (ms) |
            |---:|---|---:|---:|---:|---:|

            """
        for writers in Set(run.samples.map(\.writers)).sorted() {
            let bare = median(run.samples.filter { $0.writers == writers && $0.mode == .bare })
            for mode in FollowedWriterRuns.Mode.allCases {
                let samples = run.samples.filter { $0.writers == writers && $0.mode == mode }
                guard !samples.isEmpty else { continue }
                let tps = samples.map(\.transactionsPerSecond)
                let latency = Percentiles(samples.flatMap(\.latencies))
                let shown = [.bare, .decoding, .notify].contains(mode) ? mode.rawValue : "**\(mode.rawValue)**"
                let cpu =
                    String(format: "%.3f", middle(samples.map(\.serverCPUPerTransaction))) + " / "
                    + String(format: "%.3f", middle(samples.map(\.followersCPUPerTransaction)))
                text +=
                    "| \(writers) | \(shown) | \(String(format: "%.0f", median(samples))) "
                    + "(\(String(format: "%.0f", tps.min() ?? 0))–\(String(format: "%.0f", tps.max() ?? 0))) | "
                    + "\(Self.pair(latency)) | \(Self.closeRatio(median(samples) / bare)) | \(cpu) |\n"
            }
        }
        let each = run.samples.compactMap { sample in
            sample.decoderBehind.map {
                String(format: "%d writers %.1f MB, %.1f s", sample.writers, $0.megabytes, $0.catchUpSeconds)
            }
        }
        if !each.isEmpty {
            text += """

                *Logical decoding*: how far the decoder was behind the WAL when pgbench ended, and how
                long it then took to catch up (work the run did not pay for), each run: \(each.joined(separator: "; ")).
                `pg_recvlogical`'s own CPU is in neither column.

                """
        }
        text += """

            While pgbench writes (the change feed's followed runs), one more connection commits a +1
            win on a team pgbench does not touch, every 20 ms, and announces it after its commit (as
            the app's writes do: pgbench's writers announce nothing, and pay nothing for it); the time
            runs from its commit's return to the first follower's change callbacks for it, that
            follower alone on its core, and sharing it with the other \(run.followers - 1):

            | writers | a win → the follower's callbacks, alone: p50 / p99 (ms) | wins | with \(run.followers - 1) more on its core: p50 / p99 (ms) | wins |
            |---:|---:|---:|---:|---:|

            """
        for (writers, follow) in run.follow.sorted(by: { $0.key < $1.key }) {
            let alone = run.followAlone[writers] ?? Percentiles([])
            text +=
                "| \(writers) | **\(Self.pair(alone))** | \(alone.count) | \(Self.pair(follow)) | \(follow.count) |\n"
        }
        text += """

            Idle (nobody writing, before the runs, over \(run.idleSeconds) s each): with nobody following, the server
            used \(String(format: "%.2f", run.idleBareServerCPUPercent))% of one core (every PostgreSQL process of the cluster);
            with the \(run.followers) followers, \(String(format: "%.2f", run.idleServerCPUPercent))%, while they looked
            \(String(format: "%.0f", run.idleLooksPerSecond)) times a second together (one query each).

            """
        return text
    }

    /// Where the followers ran against the server (see `CorePlacement`).
    private func placementSentence(_ placement: CorePlacement?) -> String {
        guard let placement else {
            return "The followers, the server and pgbench shared every core of the machine."
        }
        return "The followers ran on a core of their own (core \(placement.followerCore)), as screens on other "
            + "machines would; the server and pgbench on the others (cores \(placement.serverCores)); "
            + "`--writer-cores shared` runs them all together."
    }

    private func middle(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    private func median(_ samples: [FollowedWriterRuns.Sample]) -> Double {
        let sorted = samples.map(\.transactionsPerSecond).sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }
}
