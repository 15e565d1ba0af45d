import ControllerOracles
import FetchedResultsPostgreSQL
import Foundation
import GRDB
import TestSupport

/// The randomised tests' table on PostgreSQL: sections (`grp`), sort keys, a predicate column
/// and a unique column, as in the SQLite controller's tests.
let standingsTableSQL = """
    CREATE TABLE item (id bigint PRIMARY KEY, grp text, score bigint, name text NOT NULL,
                       note text NOT NULL DEFAULT '', visible integer NOT NULL DEFAULT 1, code text UNIQUE)
    """

/// A fresh database with the `item` table above and its change feed.
func standingsDatabase() throws -> (conninfo: String, connection: PostgreSQLConnection) {
    let conninfo = try freshDatabase()
    let connection = try PostgreSQLConnection(conninfo)
    try connection.execute(standingsTableSQL)
    try PostgreSQLChangeFeed.install(on: "item", keyColumn: "id", in: connection)
    return (conninfo, connection)
}

/// One row of `item`, decoded from the server's text.
struct StandingsItem: PostgreSQLRecord, Equatable, Sendable {
    var id: Int64
    var grp: String?
    var score: Int64?
    var name: String
    var note: String
    var visible: Int
    var code: String?

    struct Undecodable: Error { let row: PostgreSQLRow }

    init(row: PostgreSQLRow) throws {
        guard let id = row["id"].flatMap(Int64.init), let name = row["name"], let note = row["note"],
            let visible = row["visible"].flatMap(Int.init)
        else { throw Undecodable(row: row) }
        (self.id, self.name, self.note, self.visible) = (id, name, note, visible)
        grp = row["grp"]
        score = row["score"].flatMap(Int64.init)
        code = row["code"]
    }
}

extension StandingsItem: FetchableRecord {
    /// A row of the same table on SQLite, for the tests over both stores.
    init(row: GRDB.Row) {
        (id, grp, score, name) = (row["id"], row["grp"], row["score"], row["name"])
        (note, visible, code) = (row["note"], row["visible"], row["code"])
    }
}

typealias StandingsState = SectionedState<StandingsItem>

/// The standings order (``ItemWorkload/standings``) written out by hand for the server.
let standingsOrderBy =
    #"lower(grp COLLATE "C") NULLS FIRST, score DESC NULLS LAST, lower(name COLLATE "C") NULLS FIRST, id"#

/// The oracle: the server's own `SELECT … ORDER BY`, written out by hand (not through the
/// library's sort descriptors), grouped as NOCASE groups.
func serverState(
    _ connection: PostgreSQLConnection, orderBy: String, limit: Int = 0, offset: Int = 0, sectioned: Bool
) throws -> StandingsState {
    let window = (limit > 0 ? " LIMIT \(limit)" : "") + (offset > 0 ? " OFFSET \(offset)" : "")
    let rows = try connection.execute("SELECT * FROM item WHERE visible = 1 ORDER BY \(orderBy)\(window)")
    let items = try rows.rows.map { try StandingsItem(row: PostgreSQLRow(columns: rows.columns, values: $0)) }
    return StandingsState(ordered: items.map { ($0.id, $0.grp, $0) }, sectioned: sectioned)
}

/// What the controller holds, in the oracle's shape.
func controllerState(_ controller: FetchedResultsController<StandingsItem>) throws -> StandingsState {
    StandingsState(
        sections: try controller.sections!.map { ($0.name, $0.objects.map(\.id)) },
        content: Dictionary(uniqueKeysWithValues: try controller.fetchedObjects!.map { ($0.id, $0) }))
}

/// Records a controller's callbacks and connection states.
typealias PostgreSQLRecorder = CallbackLog<StandingsItem>

/// Random transactions on `item` in PostgreSQL's SQL: inserts, deletes, updates of the section,
/// sort and plain columns, predicate entry and exit, no-op updates, re-keyed rows, a unique
/// code moved from row to row or taken by a new row (the old holder deleted), now and then a
/// `TRUNCATE`, and rollbacks. Literal values, so that `psql` in another process can run them.
enum PostgreSQLWorkload {
    static func transaction(itemIDs: [Int64], random: inout SplitMix64) -> RandomTransaction {
        let rollback = Int.random(in: 0..<10, using: &random) == 0
        if Int.random(in: 0..<400, using: &random) == 0 {
            return RandomTransaction(statements: ["TRUNCATE item"], rollback: rollback)
        }
        let literal = ItemWorkload.literal
        return ItemWorkload.transaction(itemIDs: itemIDs, rollback: rollback, choices: 14, random: &random) {
            step, choice, id, random in
            switch choice {
            case 9:
                // A new key for the row: the feed names the old id and the new one.
                step.statements.append("UPDATE item SET id = \(step.nextID) WHERE id = \(id)")
                step.ids.removeAll { $0 == id }
                step.takeNextID()
            case 10:
                let code = literal(ItemWorkload.codes.randomElement(using: &random)!)
                step.statements.append("UPDATE item SET code = NULL WHERE code = \(code)")
                step.statements.append("UPDATE item SET code = \(code) WHERE id = \(id)")
            case 11:
                // The new row takes the code; the row that held it goes.
                let code = literal(ItemWorkload.codes.randomElement(using: &random)!)
                step.statements.append("DELETE FROM item WHERE code = \(code)")
                step.statements.append(
                    "INSERT INTO item (id, grp, score, name, code) VALUES (\(step.nextID), "
                        + "\(literal(ItemWorkload.groups.randomElement(using: &random)!)), "
                        + "\(Int.random(in: 0...5, using: &random)), "
                        + "\(literal(ItemWorkload.names.randomElement(using: &random)!)), \(code))")
                step.takeNextID()
            default:
                return false
            }
            return true
        }
    }
}
