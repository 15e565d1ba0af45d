import FetchedResults
import FetchedResultsPostgreSQL
import TestSupport
import WorldCupModel
import WorldCupStores

/// `worldcup-bench --follow-loop WAY --uri URI [--rounds 200] [--batch 20]`: a controller follows
/// the scoreboard's request on a PostgreSQL store that `worldcup` made, while another connection
/// of this process commits `batch` +1 wins (one transaction each) per round, for a profiler. The
/// server runs outside the profiled process, so under `valgrind --tool=callgrind` the counts are
/// the follower's own work and the writer's client side, which do not drift with the machine's
/// load. The ways:
/// - `bare`: the wins only, the controller never looking;
/// - `ours`: after each round's wins, one look, which reads the feed and the touched rows and
///   delivers their callbacks.
///
/// A follower's instructions per change = (ours − bare) ÷ (rounds × batch): what a screen pays to
/// keep up with a busy table, which decides how many writers it can follow.
enum FollowLoop {
    static func run(way: String, uri: String, rounds: Int, batch: Int) throws {
        let store = try PostgreSQLTeamStore.open(conninfo: uri)
        // Held here: a controller holds its delegate weakly.
        let delegate = CountingDelegate<Team>()
        let controller = store.standingsController(cacheDirectory: nil)
        controller.delegate = delegate
        try controller.performFetch()
        let writer = try PostgreSQLConnection(uri)
        let ids = try writer.execute("SELECT id FROM team ORDER BY id").rows.compactMap { $0[0].flatMap(Int64.init) }
        guard !ids.isEmpty else { throw BenchError("no teams in \(uri)") }
        // The same teams in the same order every run, so that two runs' counts compare.
        var random = SplitMix64(seed: 27)
        let look: () throws -> Void
        switch way {
        case "bare": look = {}
        case "ours": look = { try controller.processPendingChanges() }
        default: throw BenchError("--follow-loop takes bare or ours, not \(way)")
        }
        for _ in 0..<rounds {
            for _ in 0..<batch {
                let id = ids[Int(random.next() % UInt64(ids.count))]
                try writer.execute("UPDATE team SET wins = wins + 1 WHERE id = $1", [id])
            }
            try look()
        }
        if let failure = delegate.failure { throw failure }
        if way == "ours", delegate.changes < rounds * batch * 9 / 10 {
            throw BenchError("\(rounds * batch) wins followed, \(delegate.changes) callbacks")
        }
        print("\(way): \(rounds) rounds of \(batch) wins, \(delegate.changes) callbacks")
    }
}
