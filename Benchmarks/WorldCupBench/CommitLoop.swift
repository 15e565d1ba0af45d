import FetchedResultsSQLite
import GRDB
import TestSupport

/// `worldcup-bench --commit-loop WAY --store PATH [--rounds N]`: N +1 wins on a store made by
/// `worldcup import`, all one way, for a profiler. Under `valgrind --tool=callgrind` it gives
/// instruction counts that do not drift with the machine's load, where the bench's times do:
/// instructions per win = (the run's total − a run with `--rounds 0`, which only opens the store
/// and fetches) ÷ N. The ways:
/// - `bare`: through the pool, nothing observing (the bench's bare commit);
/// - `ours`: through a controller's `write`, its callbacks delivered before it returns (the
///   bench's figure);
/// - `followed`: through the pool while a controller follows the store (what following alone
///   costs a commit; the controller looks at none of them);
/// - `floor`: `followed`, with the written row read back in the transaction (the bench's GRDB's
///   floor: what is left between it and `ours` is the controller's own work).
enum CommitLoop {
    static func run(way: String, storePath: String, rounds: Int) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        let pool = try DatabasePool(path: storePath, configuration: configuration)
        let ids = try pool.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM team") }
        // Held here: a controller holds its delegate weakly, and follows the store only for one.
        let delegate = CountingDelegate<ControllerLatency.Team>()
        let controller = ControllerLatency.controller(on: pool, delegate: delegate)
        let sql = "UPDATE team SET wins = wins + 1 WHERE id = ?"
        // The same teams in the same order every run, so that two runs' counts compare.
        var random = SplitMix64(seed: 27)
        var next: Int64 { ids[Int(random.next() % UInt64(ids.count))] }
        let win: () throws -> Void
        switch way {
        case "bare":
            win = { try pool.write { db in try db.execute(sql: sql, arguments: [next]) } }
        case "ours":
            try controller.performFetch()
            win = { try controller.write { db in try db.execute(sql: sql, arguments: [next]) } }
        case "followed":
            try controller.performFetch()
            win = { try pool.write { db in try db.execute(sql: sql, arguments: [next]) } }
        case "floor":
            try controller.performFetch()
            win = {
                try pool.write { db in
                    let id = next
                    try db.execute(sql: sql, arguments: [id])
                    _ = try Row.fetchOne(
                        db.cachedStatement(sql: "SELECT *, rowid FROM \"team\" WHERE rowid = ?"), arguments: [id])
                }
            }
        default:
            throw BenchError("--commit-loop takes bare, ours, followed or floor, not \(way)")
        }
        var samples: [Double] = []
        for round in 0..<rounds {
            let start = Clock.now()
            try win()
            samples.append(Clock.milliseconds(since: start))
            // As in the bench: the app checkpoints on its idle tick, not inside a commit.
            if round % 100 == 99 {
                try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
            }
        }
        withExtendedLifetime(delegate) {}
        if way == "ours", delegate.changes < rounds {
            throw BenchError("\(rounds) wins through the controller, \(delegate.changes) callbacks")
        }
        print(
            "\(way): \(rounds) wins, p50 \(samples.isEmpty ? "-" : String(format: "%.4f", Percentiles(samples).p50)) ms"
        )
    }
}
