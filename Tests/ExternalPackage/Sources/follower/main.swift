import FetchedResultsPostgreSQL
import FetchedResultsSQLite
import GRDB

struct Player: FetchableRecord, PostgreSQLRecord {
    var name: String
    var score: Int64
    init(row: GRDB.Row) { (name, score) = (row["name"], row["score"]) }
    init(row: PostgreSQLRow) throws {
        (name, score) = (try row.decode(forColumn: "name"), try row.decode(forColumn: "score"))
    }
}

final class Printer: FetchedResultsControllerDelegate {
    func controller(_ controller: FetchedResultsController<Player>, didChange section: SectionChange) {
        print("section \(section.type) \(section.index) \(section.name)")
    }
    func controller(_ controller: FetchedResultsController<Player>, didChange object: ObjectChange) {
        let from = object.indexPath.map { "\($0)" } ?? "-", to = object.newIndexPath.map { "\($0)" } ?? "-"
        print("object \(object.type) \(from) \(to) \(object.changedColumns.sorted())")
    }
    func controllerDidChangeContent(_ controller: FetchedResultsController<Player>) { print("--") }
    func controller(_ controller: FetchedResultsController<Player>, didFailWith error: any Error) {
        print("error \(error)")
    }
}

/// The same code for every store: fetch and print, then after each statement another
/// connection commits, look and print the change set.
func follow(
    _ controller: FetchedResultsController<Player>, run: (String) throws -> Void
) throws {
    let printer = Printer()
    controller.delegate = printer
    try controller.performFetch()
    for statement in [
        "INSERT INTO player (id, team, name, score) VALUES (4, 'blue', 'dan', 3)",
        "UPDATE player SET score = 9 WHERE id = 2",
        "DELETE FROM player WHERE id = 1",
        "UPDATE player SET team = 'Green' WHERE id = 3",
    ] {
        try run(statement)
        try controller.processPendingChanges()
    }
    for section in try controller.sections ?? [] {
        print(
            section.name + ": "
                + section.objects.map { "\($0.name) \($0.score)" }.joined(separator: ", "))
    }
}

let request = TableFetchRequest(
    table: "player",
    sortDescriptors: [
        .ascending("team", collation: .caseInsensitive), .descending("score"), .ascending("name"),
    ])
let rows = "(1, 'red', 'ann', 1), (2, 'red', 'bob', 2), (3, 'blue', 'cy', 5)"
switch (CommandLine.arguments[1], CommandLine.arguments[2]) {
case ("sqlite", let path):
    let pool = try DatabasePool(path: path)
    try pool.write { db in
        try db.execute(
            sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, "
                + "team TEXT, name TEXT, score INTEGER)")
        try db.execute(sql: "INSERT INTO player VALUES " + rows)
        try ChangeHistory.install(on: "player", in: db)
    }
    let other = try DatabaseQueue(path: path)
    try follow(
        FetchedResultsController(
            fetchRequest: request, database: pool, recordType: Player.self, sectionNameKeyPath: "team")
    ) { sql in try other.write { try $0.execute(sql: sql) } }
case ("postgresql", let conninfo):
    let other = try PostgreSQLConnection(conninfo)
    try other.execute("CREATE TABLE player (id bigint PRIMARY KEY, team text, name text, score bigint)")
    try other.execute("INSERT INTO player VALUES " + rows)
    try PostgreSQLChangeFeed.install(on: "player", keyColumn: "id", in: other)
    try follow(
        FetchedResultsController(
            fetchRequest: request, conninfo: conninfo, recordType: Player.self, sectionNameKeyPath: "team")
    ) { sql in try other.execute(sql) }
default:
    fatalError("usage: follower sqlite PATH | postgresql CONNINFO")
}
