import Dispatch
import FetchedResultsSQLite
import Foundation
import GRDB

/// One +1 win on a store of N teams: how long until the change is known, side by side in one
/// process, for
/// - the bare commit (nothing observes it): the floor;
/// - FetchedResultsController: a write through the controller → change callbacks delivered
///   (before the write returns);
/// - GRDB's floor: the bare commit while a controller follows the store (GRDB then runs its
///   transaction observation for every statement), with the written row read back in the
///   transaction by one `Row.fetchOne`: the least any controller built on GRDB's observation
///   and rows must add before its callbacks, with nothing of its own;
/// - GRDB `ValueObservation` of the same ordered ids + `difference(from:)`: commit → diff ready;
/// - a plain full refetch of the ordered ids after the commit.
///
/// SQLite's automatic WAL checkpoint runs inside whichever commit crosses its threshold, adding
/// milliseconds to that one write whatever observes it. The app checkpoints on its idle tick
/// instead, so every contender runs with auto-checkpoint off and a checkpoint every 100 writes,
/// outside the timed part.
struct ControllerLatency {
    struct Result {
        /// A plain `performFetch()` of the request on a new controller (median of three).
        var fetchSeconds: Double
        var bare, ours, grdbFloor, valueObservation, refetch: Percentiles
    }

    let storePath: String
    let iterations: Int

    struct Team: FetchableRecord, Decodable, Sendable {
        var teamName: String
        var qualifyingZone: String
        var wins: Int
    }

    /// The scoreboard's request (sectioned by `qualifyingZone`), on either store.
    static let standingsRequest = TableFetchRequest(
        table: "team",
        sortDescriptors: [
            .ascending("qualifyingZone", collation: .caseInsensitive),
            .descending("wins"),
            .ascending("teamName", collation: .caseInsensitive),
        ], fetchBatchSize: 100)

    /// The scoreboard's request, sectioned by zone, on `pool`.
    static func controller(on pool: DatabasePool, delegate: CountingDelegate<Team>) -> FetchedResultsController<Team> {
        let controller = FetchedResultsController<Team>(
            fetchRequest: standingsRequest, database: pool, sectionNameKeyPath: "qualifyingZone")
        controller.delegate = delegate
        return controller
    }

    /// The blocks the bare commit's and ours' rounds are split into, taking turns.
    static let blocks = 5

    static let orderedIDsSQL =
        "SELECT id FROM team ORDER BY qualifyingZone COLLATE NOCASE, wins DESC, teamName COLLATE NOCASE, id"

    func run() throws -> Result {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        let pool = try DatabasePool(path: storePath, configuration: configuration)
        let ids = try pool.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM team") }
        // Expensive peers get fewer rounds at large sizes; they take up to a second each.
        let peerIterations = max(10, min(iterations, 20_000_000 / max(ids.count, 1)))
        var writes = 0
        func win() throws {
            let id = ids.randomElement()!
            try pool.write { db in try db.execute(sql: "UPDATE team SET wins = wins + 1 WHERE id = ?", arguments: [id])
            }
        }
        func checkpointNowAndThen() throws {
            writes += 1
            if writes % 100 == 0 {
                try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
            }
        }
        func measure(_ rounds: Int, _ body: () throws -> Void) throws -> Percentiles {
            try Percentiles.measure(rounds, body, between: checkpointNowAndThen)
        }

        let delegate = CountingDelegate<Team>()
        func makeController() -> FetchedResultsController<Team> { Self.controller(on: pool, delegate: delegate) }
        // A plain full fetch, what the scoreboard's load behind its first frame is held to:
        // the median of three fresh controllers.
        let fetchSeconds = Percentiles(
            try (0..<3).map { _ in
                let controller = makeController()
                let fetchStart = Clock.now()
                try controller.performFetch()
                return Clock.milliseconds(since: fetchStart) / 1000
            }
        ).p50
        // The bare commit, ours and GRDB's floor take turns, a block each, so that the machine's drift over
        // the run (page cache, other programs) weighs on both alike: measured one after the
        // other, the bare commit's p50 alone ranged 0.06-0.10 ms at 32 teams from run to run.
        // Between blocks the controller stops following the store, so that nothing observes a
        // bare commit, and fetches again before its block.
        let controller = makeController()
        var bareSamples: [Double] = [], oursSamples: [Double] = [], floorSamples: [Double] = []
        let blockRounds = max(1, iterations / Self.blocks)
        for _ in 0..<Self.blocks {
            bareSamples += try Percentiles.samples(blockRounds, win, between: checkpointNowAndThen)
            try controller.performFetch()
            // A win through the controller's connection: its change set is delivered before
            // the write returns, as a table view wants a tap's write shown.
            oursSamples += try Percentiles.samples(
                blockRounds,
                {
                    let id = ids.randomElement()!
                    try controller.write { db in
                        try db.execute(sql: "UPDATE team SET wins = wins + 1 WHERE id = ?", arguments: [id])
                    }
                }, between: checkpointNowAndThen)
            // Still following: the store's own read of one row, by the statement it uses.
            floorSamples += try Percentiles.samples(
                blockRounds,
                {
                    let id = ids.randomElement()!
                    try pool.write { db in
                        try db.execute(sql: "UPDATE team SET wins = wins + 1 WHERE id = ?", arguments: [id])
                        let read = try db.cachedStatement(sql: "SELECT *, rowid FROM \"team\" WHERE rowid = ?")
                        _ = try Row.fetchOne(read, arguments: [id])
                    }
                }, between: checkpointNowAndThen)
            controller.stopTracking()
        }
        let bare = Percentiles(bareSamples), ours = Percentiles(oursSamples)
        let grdbFloor = Percentiles(floorSamples)
        precondition(delegate.changes >= oursSamples.count, "every win produced a callback")

        let refetch = try measure(peerIterations) {
            try win()
            _ = try pool.read { db in try Int64.fetchAll(db, sql: Self.orderedIDsSQL) }
        }

        let valueObservation = try observeWithValueObservation(
            pool: pool, rounds: peerIterations, win: win, after: checkpointNowAndThen)
        return Result(
            fetchSeconds: fetchSeconds, bare: bare, ours: ours, grdbFloor: grdbFloor,
            valueObservation: valueObservation, refetch: refetch)
    }

    private func observeWithValueObservation(
        pool: DatabasePool, rounds: Int, win: () throws -> Void,
        after: () throws -> Void
    ) throws -> Percentiles {
        let observation = ValueObservation.trackingConstantRegion { db in
            try Int64.fetchAll(db, sql: Self.orderedIDsSQL)
        }
        let state = PeerState()
        let cancellable = observation.start(
            in: pool, scheduling: .async(onQueue: DispatchQueue(label: "peer")),
            onError: { fatalError("\($0)") }
        ) { ids in state.received(ids) }
        state.delivered.wait()  // the initial value
        for _ in 0..<Percentiles.warmUpRounds(rounds) {
            try win()
            state.delivered.wait()
            try after()
        }
        state.samples = []
        for _ in 0..<rounds {
            state.start = Clock.now()
            try win()
            state.delivered.wait()
            try after()
        }
        cancellable.cancel()
        return Percentiles(state.samples)
    }
}

/// The ValueObservation peer's bookkeeping, touched from its queue while the main thread waits.
private final class PeerState: @unchecked Sendable {
    let delivered = DispatchSemaphore(value: 0)
    var previous: [Int64]?
    var start: UInt64 = 0
    var samples: [Double] = []

    func received(_ ids: [Int64]) {
        if let previous {
            _ = ids.difference(from: previous)
            samples.append(Clock.milliseconds(since: start))
        }
        previous = ids
        delivered.signal()
    }
}
