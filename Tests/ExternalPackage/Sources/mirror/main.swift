// A to-do list shown the way UIKit shows one, by a program outside the library's repository:
// a table view's mirror applies each change set as `beginUpdates()`/`endUpdates()` would,
// configuring every cell it inserts, moves or reloads from the controller inside the callbacks
// (rows read in batches of 20, most not loaded yet), while random transactions commit through
// the controller and through another connection. It ends equal to a fresh fetch, or says why not.
//
// Usage: mirror sqlite PATH SEED | mirror postgresql CONNINFO SEED

import FetchedResultsPostgreSQL
import FetchedResultsSQLite
import Foundation
import GRDB

struct Todo: FetchableRecord, PostgreSQLRecord {
    var id: Int64
    var project: String
    var title: String
    var rank: Int64
    var done: Int64

    init(row: GRDB.Row) {
        (id, project, title, rank, done) = (row["id"], row["project"], row["title"], row["rank"], row["done"])
    }

    init(row: PostgreSQLRow) throws {
        id = try row.decode(forColumn: "id")
        project = try row.decode(forColumn: "project")
        title = try row.decode(forColumn: "title")
        rank = try row.decode(forColumn: "rank")
        done = try row.decode(forColumn: "done")
    }

    /// What a cell shows.
    var cell: String { "\(id) \(title) rank \(rank)\(done == 1 ? " done" : "")" }
}

/// A table view, as far as the controller's callbacks reach it: sections of cells, changed by
/// batch updates under UIKit's rules (deletes against the old rows, inserts against the new),
/// each inserted, moved or reloaded cell configured by reading the controller.
final class TableViewMirror: FetchedResultsControllerDelegate {
    var sections: [(name: String, cells: [String])] = []
    private var sectionChanges: [SectionChange] = []
    private var objectChanges: [ObjectChange] = []
    var problems: [String] = []

    /// `reloadData()`: every cell from the controller.
    func reloadData(_ controller: FetchedResultsController<Todo>) throws {
        sections = try (0..<controller.numberOfSections).map { section in
            (
                controller.sectionName(at: section),
                try (0..<controller.numberOfObjects(inSection: section)).map {
                    try controller.object(at: IndexPath(row: $0, section: section)).cell
                }
            )
        }
    }

    func controllerWillChangeContent(_ controller: FetchedResultsController<Todo>) {
        sectionChanges = []
        objectChanges = []
    }

    func controller(_ controller: FetchedResultsController<Todo>, didChange section: SectionChange) {
        sectionChanges.append(section)
    }

    func controller(_ controller: FetchedResultsController<Todo>, didChange object: ObjectChange) {
        objectChanges.append(object)
    }

    /// `endUpdates()`.
    func controllerDidChangeContent(_ controller: FetchedResultsController<Todo>) {
        do {
            try applyBatch(controller)
        } catch {
            problems.append("reading the controller inside the callback: \(error)")
        }
    }

    func controller(_ controller: FetchedResultsController<Todo>, didFailWith error: any Error) {
        problems.append("the controller failed: \(error)")
    }

    private func cell(_ controller: FetchedResultsController<Todo>, _ path: IndexPath) throws -> String {
        try controller.object(at: path).cell
    }

    private func applyBatch(_ controller: FetchedResultsController<Todo>) throws {
        // Removals against the old rows, from the end.
        let removed = objectChanges.filter { $0.type == .delete || $0.type == .move }.compactMap(\.indexPath)
        for path in removed.sorted(by: >) { sections[path.section].cells.remove(at: path.row) }
        for change in sectionChanges.filter({ $0.type == .delete }).sorted(by: { $0.index > $1.index }) {
            sections.remove(at: change.index)
        }
        // Insertions against the new rows, from the start; a new section's cells come whole.
        for change in sectionChanges.filter({ $0.type == .insert }).sorted(by: { $0.index < $1.index }) {
            let cells = try (0..<controller.numberOfObjects(inSection: change.index)).map {
                try cell(controller, IndexPath(row: $0, section: change.index))
            }
            sections.insert((change.name, cells), at: change.index)
        }
        for change in sectionChanges where change.type == .update { sections[change.index].name = change.name }
        let inserted = objectChanges.filter { $0.type == .insert || $0.type == .move }.compactMap(\.newIndexPath)
        for path in inserted.sorted() {
            sections[path.section].cells.insert(try cell(controller, path), at: path.row)
        }
        // Reloads: the updated cells, where they are now.
        for change in objectChanges where change.type == .update {
            guard let path = change.newIndexPath else { continue }
            sections[path.section].cells[path.row] = try cell(controller, path)
        }
        // UIKit's own check: the rows the data source reports now are the rows the batch left.
        let counts = (0..<controller.numberOfSections).map { controller.numberOfObjects(inSection: $0) }
        if counts != sections.map(\.cells.count) {
            problems.append("invalid update: \(sections.map(\.cells.count)) rows after the batch, \(counts) reported")
        }
    }
}

/// A seeded generator, so a failing run can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One random transaction's statements, in SQL both stores run.
func randomTransaction(_ random: inout SplitMix64, nextID: inout Int) -> [String] {
    let projects = ["home", "work", "garden", "music", "travel"]
    return (0..<Int.random(in: 1...3, using: &random)).map { _ in
        let project = projects.randomElement(using: &random)!
        switch Int.random(in: 0..<9, using: &random) {
        case 0, 1:
            nextID += 1
            return "INSERT INTO task (id, project, title, rank, done) VALUES "
                + "(\(nextID), '\(project)', 'task \(nextID)', \(Int.random(in: 0..<50, using: &random)), 0)"
        case 2:
            return "UPDATE task SET rank = rank + \(Int.random(in: -20...20, using: &random)) "
                + "WHERE id % \(Int.random(in: 2...5, using: &random)) = 0"
        case 3:
            return "UPDATE task SET project = '\(project)' WHERE id = \(Int.random(in: 1...nextID, using: &random))"
        case 4:
            return "UPDATE task SET title = title || '!' WHERE id = \(Int.random(in: 1...nextID, using: &random))"
        case 5:
            return "UPDATE task SET done = 1 - done WHERE id % 7 = \(Int.random(in: 0..<7, using: &random))"
        case 6:
            return "DELETE FROM task WHERE id = \(Int.random(in: 1...nextID, using: &random))"
        case 7:
            return "DELETE FROM task WHERE project = '\(project)' AND rank > 30"
        default:
            nextID += 1
            return "INSERT INTO task (id, project, title, rank, done) VALUES "
                + "(\(nextID), 'new \(nextID % 3)', 'task \(nextID)', 1, 0)"
        }
    }
}

/// The same code for every store: random transactions, through the controller or another
/// connection, and a mirror that must end as a fresh fetch shows the tasks.
func run(
    _ controller: FetchedResultsController<Todo>, fresh: () -> FetchedResultsController<Todo>,
    seed: UInt64, writeThroughController: ([String]) throws -> Void, writeElsewhere: ([String]) throws -> Void
) throws -> Bool {
    var random = SplitMix64(state: seed)
    let mirror = TableViewMirror()
    controller.delegate = mirror
    try controller.performFetch()
    try mirror.reloadData(controller)
    var nextID = 60
    for _ in 0..<150 {
        let statements = randomTransaction(&random, nextID: &nextID)
        if Bool.random(using: &random) {
            try writeThroughController(statements)
        } else {
            try writeElsewhere(statements)
            try controller.processPendingChanges()
        }
    }
    let check = fresh()
    try check.performFetch()
    let expected = try (check.sections ?? []).map { ($0.name, $0.objects.map(\.cell)) }
    let same = expected.map(\.0) == mirror.sections.map(\.name) && expected.map(\.1) == mirror.sections.map(\.cells)
    if !same { print("mirror:   \(mirror.sections)\nexpected: \(expected)") }
    for problem in mirror.problems.prefix(10) { print("problem: \(problem)") }
    return same && mirror.problems.isEmpty
}

let request = TableFetchRequest(
    table: "task", sortDescriptors: [.ascending("project"), .ascending("rank"), .ascending("title")],
    fetchBatchSize: 20)
let createTable =
    "CREATE TABLE task (id bigint PRIMARY KEY, project text NOT NULL, title text NOT NULL, rank bigint NOT NULL, "
    + "done bigint NOT NULL)"
let firstTasks =
    "INSERT INTO task (id, project, title, rank, done) VALUES "
    + (1...60).map { "(\($0), '\(["home", "work", "garden"][$0 % 3])', 'task \($0)', \($0 % 17), 0)" }
    .joined(separator: ", ")
guard CommandLine.arguments.count == 4, let seed = UInt64(CommandLine.arguments[3]) else {
    fatalError("usage: mirror sqlite PATH SEED | mirror postgresql CONNINFO SEED")
}
let matched: Bool
switch CommandLine.arguments[1] {
case "sqlite":
    let pool = try DatabasePool(path: CommandLine.arguments[2])
    try pool.write { db in
        try db.execute(sql: createTable)
        try db.execute(sql: firstTasks)
        try ChangeHistory.install(on: "task", in: db)
    }
    let other = try DatabaseQueue(path: CommandLine.arguments[2])
    let controller = FetchedResultsController(
        fetchRequest: request, database: pool, recordType: Todo.self, sectionNameKeyPath: "project")
    matched = try run(
        controller,
        fresh: {
            FetchedResultsController(
                fetchRequest: request, database: pool, recordType: Todo.self, sectionNameKeyPath: "project")
        }, seed: seed,
        writeThroughController: { statements in
            try controller.write { db in for sql in statements { try db.execute(sql: sql) } }
        },
        writeElsewhere: { statements in try other.write { db in for sql in statements { try db.execute(sql: sql) } } })
case "postgresql":
    let conninfo = CommandLine.arguments[2]
    let other = try PostgreSQLConnection(conninfo)
    try other.execute(createTable)
    try other.execute(firstTasks)
    try PostgreSQLChangeFeed.install(on: "task", keyColumn: "id", in: other)
    let controller = FetchedResultsController(
        fetchRequest: request, conninfo: conninfo, recordType: Todo.self, sectionNameKeyPath: "project")
    matched = try run(
        controller,
        fresh: {
            FetchedResultsController(
                fetchRequest: request, conninfo: conninfo, recordType: Todo.self, sectionNameKeyPath: "project")
        }, seed: seed,
        writeThroughController: { statements in
            try controller.write { connection in for sql in statements { try connection.execute(sql) } }
        },
        writeElsewhere: { statements in
            try other.transaction { for sql in statements { try other.execute(sql) } }
        })
default:
    fatalError("usage: mirror sqlite PATH SEED | mirror postgresql CONNINFO SEED")
}
print(matched ? "the mirror equals a fresh fetch" : "the mirror differs from a fresh fetch")
exit(matched ? 0 : 1)
