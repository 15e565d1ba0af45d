// One +1 win at N rows: how long until the change is delivered, for
//   - the bare commit (no observer at all): the floor;
//   - FetchedResultsController: commit -> change callbacks delivered (synchronous, at commit);
//   - GRDB ValueObservation of the same ordered ids + difference(from:): commit -> diff ready.
// Usage: controller-benchmark [rows] [iterations] [all|controller]
//
// SQLite's automatic WAL checkpoint runs inside whichever commit crosses the threshold, adding
// milliseconds to that one write whatever observes it. The app checkpoints on its idle tick
// instead, so here every contender runs with auto-checkpoint off and a checkpoint between
// measurements, every 100 writes.
import Dispatch
import FetchedResults
import Foundation
import GRDB

struct Team: FetchableRecord, Decodable, Sendable {
    var teamName: String
    var qualifyingZone: String
    var wins: Int
}

final class CountingDelegate: FetchedResultsControllerDelegate {
    var changes = 0
    func controller(_ controller: AnyFetchedResultsController, didChange object: ObjectChange) { changes += 1 }
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func summary(_ label: String, _ nanoseconds: [UInt64]) -> (p50: Double, p99: Double) {
    let sorted = nanoseconds.sorted()
    let p50 = Double(sorted[sorted.count / 2]) / 1e6
    let p99 = Double(sorted[min(sorted.count - 1, sorted.count * 99 / 100)]) / 1e6
    let p90 = Double(sorted[sorted.count * 90 / 100]) / 1e6
    let maximum = Double(sorted.last!) / 1e6
    print(String(format: "%-38@ p50 %8.3f  p90 %8.3f  p99 %8.3f  max %8.3f ms  (n=%d)",
                 label as NSString, p50, p90, p99, maximum, sorted.count))
    return (p50, p99)
}

let arguments = CommandLine.arguments
let rowCount = arguments.count > 1 ? Int(arguments[1])! : 1_000_000
let iterations = arguments.count > 2 ? Int(arguments[2])! : 200
let peerIterations = max(5, min(iterations, 20_000_000 / max(rowCount, 1)))
let runsPeer = arguments.count > 3 ? arguments[3] == "all" : true

let path = NSTemporaryDirectory() + "controller-benchmark-\(getpid()).sqlite"
defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
var configuration = Configuration()
configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
let pool = try DatabasePool(path: path, configuration: configuration)
try pool.write { db in
    try db.execute(sql: """
        CREATE TABLE team (id INTEGER PRIMARY KEY, teamName TEXT NOT NULL COLLATE NOCASE UNIQUE,
                           qualifyingZone TEXT NOT NULL COLLATE NOCASE, imageName TEXT, wins INTEGER NOT NULL);
        CREATE INDEX team_standings ON team (qualifyingZone, wins DESC, teamName);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rowCount))
        INSERT INTO team (teamName, qualifyingZone, wins)
        SELECT 'Team ' || i, 'Zone ' || (i % 37), abs(random() % 50) FROM n;
        """)
}
print("rows: \(rowCount), iterations: \(iterations) (peer: \(peerIterations)), SQLite WAL, release build")

nonisolated(unsafe) var writes = 0
func checkpointNowAndThen() throws {
    writes += 1
    if writes % 100 == 0 { try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") } }
}

func randomWin() throws {
    let id = Int64.random(in: 1...Int64(rowCount))
    try pool.write { db in try db.execute(sql: "UPDATE team SET wins = wins + 1 WHERE id = ?", arguments: [id]) }
}

// 1. Bare commit.
var bare: [UInt64] = []
for _ in 0..<iterations {
    let start = now()
    try randomWin()
    bare.append(now() - start)
    try checkpointNowAndThen()
}
let bareSummary = summary("bare commit", bare)

// 2. The controller: callbacks are delivered before write() returns.
let request = TableFetchRequest(table: "team", sortDescriptors: [
    ColumnSortDescriptor(key: "qualifyingZone", collation: .noCase),
    ColumnSortDescriptor(key: "wins", ascending: false),
    ColumnSortDescriptor(key: "teamName", collation: .noCase),
])
let controller = FetchedResultsController<Team>(fetchRequest: request, database: pool, sectionNameKeyPath: "qualifyingZone")
let delegate = CountingDelegate()
controller.delegate = delegate
var start = now()
try controller.performFetch()
print(String(format: "controller performFetch: %.3f s", Double(now() - start) / 1e9))
var ours: [UInt64] = []
for _ in 0..<iterations {
    start = now()
    try randomWin()
    ours.append(now() - start)
    try checkpointNowAndThen()
}
let ourSummary = summary("FetchedResultsController (callbacks)", ours)
precondition(delegate.changes >= iterations, "every win produced a callback")
controller.delegate = nil

guard runsPeer else { exit(0) }

// 3. The peer: ValueObservation of the ordered ids, then difference(from:).
let observedIDs = ValueObservation.trackingConstantRegion { db in
    try Int64.fetchAll(db, sql: "SELECT id FROM team ORDER BY qualifyingZone, wins DESC, teamName, id")
}
let queue = DispatchQueue(label: "peer")
let delivered = DispatchSemaphore(value: 0)
nonisolated(unsafe) var previous: [Int64]? = nil
nonisolated(unsafe) var peerStart: UInt64 = 0
nonisolated(unsafe) var peer: [UInt64] = []
let cancellable = observedIDs.start(in: pool, scheduling: .async(onQueue: queue), onError: { fatalError("\($0)") }) { ids in
    if let before = previous {
        _ = ids.difference(from: before)
        peer.append(now() - peerStart)
    }
    previous = ids
    delivered.signal()
}
delivered.wait()  // the initial value
for _ in 0..<peerIterations {
    peerStart = now()
    try randomWin()
    delivered.wait()
    try checkpointNowAndThen()
}
cancellable.cancel()
let peerSummary = summary("ValueObservation + difference(from:)", peer)

print(String(format: "ratio p50 peer/ours: %.0fx   ours/bare commit: %.2fx", peerSummary.p50 / ourSummary.p50, ourSummary.p50 / bareSummary.p50))
