// A to-do list shown the way UIKit shows one, by a program outside the library's repository:
// a table view's mirror applies each change set as `beginUpdates()`/`endUpdates()` would,
// configuring every cell it inserts, moves or reloads from the controller inside the callbacks
// (rows read in batches of 20, most not loaded yet), while random transactions commit through
// the controller and through another connection. After every transaction the mirror must equal
// the table as the database itself orders it, or the program says why not.
//
// Usage: mirror sqlite PATH SEED | mirror postgresql CONNINFO SEED | mirror memory - SEED
// (the last on this package's own store, MemoryStore, written with the library's public API).

import FetchedResultsPostgreSQL
import FetchedResultsSQLite
import Foundation
import GRDB
import MemoryStore

struct Todo: FetchableRecord, PostgreSQLRecord, Equatable {
    var id: Int64
    var project: String
    var title: String
    var rank: Int64
    var done: Int64

    init(row: GRDB.Row) {
        (id, project, title, rank, done) = (row["id"], row["project"], row["title"], row["rank"], row["done"])
    }

    init(row: MemoryRow) {
        guard case let .text(project) = row["project"], case let .text(title) = row["title"],
            case let .integer(rank) = row["rank"], case let .integer(done) = row["done"]
        else { fatalError("a task row of other types: \(row)") }
        (id, self.project, self.title, self.rank, self.done) = (row.id, project, title, rank, done)
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

/// One change a transaction makes, said in SQL for the SQL stores and applied as such to a
/// memory table.
enum Step {
    case insert(id: Int, project: String, rank: Int)
    case shiftRanks(by: Int, ofIDsDivisibleBy: Int)
    case move(id: Int, to: String)
    case retitle(id: Int)
    case toggleDone(idsWithRemainder: Int)
    case delete(id: Int)
    case deleteRanksAbove30(in: String)

    var sql: String {
        switch self {
        case let .insert(id, project, rank):
            "INSERT INTO task (id, project, title, rank, done) VALUES (\(id), '\(project)', 'task \(id)', \(rank), 0)"
        case let .shiftRanks(delta, divisor): "UPDATE task SET rank = rank + \(delta) WHERE id % \(divisor) = 0"
        case let .move(id, project): "UPDATE task SET project = '\(project)' WHERE id = \(id)"
        case let .retitle(id): "UPDATE task SET title = title || '!' WHERE id = \(id)"
        case let .toggleDone(remainder): "UPDATE task SET done = 1 - done WHERE id % 7 = \(remainder)"
        case let .delete(id): "DELETE FROM task WHERE id = \(id)"
        case let .deleteRanksAbove30(project): "DELETE FROM task WHERE project = '\(project)' AND rank > 30"
        }
    }

    func apply(to table: MemoryTable) {
        func integer(_ value: SortValue) -> Int64 {
            if case let .integer(number) = value { return number }
            return 0
        }
        switch self {
        case let .insert(id, project, rank):
            table.insert(Self.row(id: Int64(id), project: project, title: "task \(id)", rank: Int64(rank), done: 0))
        case let .shiftRanks(delta, divisor):
            table.update(where: { $0.id % Int64(divisor) == 0 }) {
                $0.values["rank"] = .integer(integer($0["rank"]) + Int64(delta))
            }
        case let .move(id, project):
            table.update(where: { $0.id == id }) { $0.values["project"] = .text(project) }
        case let .retitle(id):
            table.update(where: { $0.id == id }) { $0.values["title"] = .text($0["title"].sectionName + "!") }
        case let .toggleDone(remainder):
            table.update(where: { $0.id % 7 == remainder }) { $0.values["done"] = .integer(1 - integer($0["done"])) }
        case let .delete(id):
            table.delete { $0.id == id }
        case let .deleteRanksAbove30(project):
            table.delete { $0["project"] == .text(project) && integer($0["rank"]) > 30 }
        }
    }

    static func row(id: Int64, project: String, title: String, rank: Int64, done: Int64) -> MemoryRow {
        MemoryRow(
            id: id,
            values: [
                "id": .integer(id), "project": .text(project), "title": .text(title), "rank": .integer(rank),
                "done": .integer(done),
            ])
    }
}

/// One random transaction's steps.
func randomTransaction(_ random: inout SplitMix64, nextID: inout Int) -> [Step] {
    let projects = ["home", "work", "garden", "music", "travel"]
    return (0..<Int.random(in: 1...3, using: &random)).map { _ in
        let project = projects.randomElement(using: &random)!
        switch Int.random(in: 0..<9, using: &random) {
        case 0, 1:
            nextID += 1
            return .insert(id: nextID, project: project, rank: Int.random(in: 0..<50, using: &random))
        case 2:
            return .shiftRanks(
                by: Int.random(in: -20...20, using: &random), ofIDsDivisibleBy: Int.random(in: 2...5, using: &random))
        case 3: return .move(id: Int.random(in: 1...nextID, using: &random), to: project)
        case 4: return .retitle(id: Int.random(in: 1...nextID, using: &random))
        case 5: return .toggleDone(idsWithRemainder: Int.random(in: 0..<7, using: &random))
        case 6: return .delete(id: Int.random(in: 1...nextID, using: &random))
        case 7: return .deleteRanksAbove30(in: project)
        default:
            nextID += 1
            return .insert(id: nextID, project: "new \(nextID % 3)", rank: 1)
        }
    }
}

/// The same code for every store: random transactions, through the controller or another
/// connection, and a mirror that must show, after each, the tasks as `fresh` orders them.
func run(
    _ controller: FetchedResultsController<Todo>, fresh: () throws -> [(String, [String])], seed: UInt64,
    writeThroughController: ([Step]) throws -> Void, writeElsewhere: ([Step]) throws -> Void
) throws -> Bool {
    var random = SplitMix64(state: seed)
    let mirror = TableViewMirror()
    controller.delegate = mirror
    try controller.performFetch()
    try mirror.reloadData(controller)
    var nextID = 60
    for step in 0..<150 {
        let steps = randomTransaction(&random, nextID: &nextID)
        if Bool.random(using: &random) {
            try writeThroughController(steps)
        } else {
            try writeElsewhere(steps)
            try controller.processPendingChanges()
        }
        let expected = try fresh()
        guard expected.map(\.0) == mirror.sections.map(\.name), expected.map(\.1) == mirror.sections.map(\.cells),
            mirror.problems.isEmpty
        else {
            print("after transaction \(step) (\(steps.map(\.sql)))")
            print("mirror:   \(mirror.sections)\nexpected: \(expected)")
            for problem in mirror.problems.prefix(10) { print("problem: \(problem)") }
            return false
        }
    }
    return true
}

/// Tasks in sections by project, as the rows come from an `ORDER BY project, rank, title, id`.
func sections(_ todos: [Todo]) -> [(String, [String])] {
    var sections: [(String, [String])] = []
    for todo in todos {
        if sections.last?.0 == todo.project {
            sections[sections.count - 1].1.append(todo.cell)
        } else {
            sections.append((todo.project, [todo.cell]))
        }
    }
    return sections
}

let orderBy = "ORDER BY project, rank, title, id"
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
let usage = "usage: mirror sqlite PATH SEED | mirror postgresql CONNINFO SEED | mirror memory - SEED"
guard CommandLine.arguments.count == 4, let seed = UInt64(CommandLine.arguments[3]) else { fatalError(usage) }
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
        fresh: { sections(try other.read { try Todo.fetchAll($0, sql: "SELECT * FROM task " + orderBy) }) },
        seed: seed,
        writeThroughController: { steps in
            try controller.write { db in for step in steps { try db.execute(sql: step.sql) } }
        },
        writeElsewhere: { steps in try other.write { db in for step in steps { try db.execute(sql: step.sql) } } })
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
            let result = try other.execute(
                "SELECT * FROM task " + orderBy.replacingOccurrences(of: "title", with: "title COLLATE \"C\""))
            return sections(try result.rows.map { try Todo(row: PostgreSQLRow(columns: result.columns, values: $0)) })
        }, seed: seed,
        writeThroughController: { steps in
            try controller.write { connection in for step in steps { try connection.execute(step.sql) } }
        },
        writeElsewhere: { steps in
            try other.transaction { for step in steps { try other.execute(step.sql) } }
        })
case "memory":
    let table = MemoryTable(columns: ["id", "project", "title", "rank", "done"])
    try table.transaction { table in
        for id in 1...60 {
            table.insert(
                Step.row(
                    id: Int64(id), project: ["home", "work", "garden"][id % 3], title: "task \(id)",
                    rank: Int64(id % 17), done: 0))
        }
    }
    let controller = FetchedResultsController(
        fetchRequest: request, store: MemoryStore(table: table), sectionNameKeyPath: "project",
        decode: { Todo(row: $0) })
    matched = try run(
        controller,
        fresh: {
            // The oracle: the same order, by Swift's own comparisons.
            let todos = table.allRows.map(Todo.init(row:)).sorted {
                ($0.project, $0.rank, $0.title, $0.id) < ($1.project, $1.rank, $1.title, $1.id)
            }
            return sections(todos)
        }, seed: seed,
        writeThroughController: { steps in
            try controller.write { (table: MemoryTable) in for step in steps { step.apply(to: table) } }
        },
        writeElsewhere: { steps in try table.transaction { table in for step in steps { step.apply(to: table) } } })
default:
    fatalError(usage)
}
print(matched ? "the mirror equals the table after every transaction" : "the mirror differs from the table")
exit(matched ? 0 : 1)
