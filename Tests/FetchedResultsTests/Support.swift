import TestSupport
import FetchedResults
import Foundation
import GRDB

/// The test table's record.
struct Item: Codable, FetchableRecord, PersistableRecord, Equatable, Sendable {
    var id: Int64?
    var grp: String?
    var score: Int?
    var name: String
    var note: String
    var visible: Int
    /// Unique when not NULL: `REPLACE` through it deletes the row that held the code.
    var code: String? = nil
}

/// The test table: sections (`grp`), sort keys, a predicate column, and a unique column.
let itemTableSQL = """
    CREATE TABLE item (id INTEGER PRIMARY KEY, grp TEXT, score INTEGER, name TEXT NOT NULL,
                       note TEXT NOT NULL DEFAULT '', visible INTEGER NOT NULL DEFAULT 1, code TEXT UNIQUE)
    """

/// Records every callback, batch by batch.
final class Recorder: FetchedResultsControllerDelegate {
    struct Batch {
        var sections: [SectionChange] = []
        var objects: [ObjectChange] = []
        var closed = false
    }
    var batches: [Batch] = []
    var snapshots: [ResultsSnapshot] = []
    var differences: [CollectionDifference<Int64>] = []

    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) { batches.append(Batch()) }
    func controller(_ controller: AnyFetchedResultsController, didChange section: SectionChange) {
        batches[batches.count - 1].sections.append(section)
    }
    func controller(_ controller: AnyFetchedResultsController, didChange object: ObjectChange) {
        batches[batches.count - 1].objects.append(object)
    }
    func controllerDidChangeContent(_ controller: AnyFetchedResultsController) { batches[batches.count - 1].closed = true }
    func controller(_ controller: AnyFetchedResultsController, didChangeContentWith snapshot: ResultsSnapshot) {
        snapshots.append(snapshot)
    }
    func controller(_ controller: AnyFetchedResultsController, didChangeContentWith difference: CollectionDifference<Int64>) {
        differences.append(difference)
    }
    var errors: [any Error] = []
    func controller(_ controller: AnyFetchedResultsController, didFailWith error: any Error) { errors.append(error) }
    func reset() { batches = []; snapshots = []; differences = []; errors = [] }
}

func makeItemDatabase(history: Bool = false) throws -> (DatabasePool, String) {
    let path = NSTemporaryDirectory() + "fetched-results-" + UUID().uuidString + ".sqlite"
    let pool = try DatabasePool(path: path)
    try pool.write { db in
        try db.execute(sql: itemTableSQL)
        if history { try ChangeHistory.install(on: "item", in: db) }
    }
    return (pool, path)
}

/// The results as SQLite itself orders them: the independent oracle.
struct SectionedState<Content: Equatable>: Equatable, CustomStringConvertible {
    var sections: [(name: String, ids: [Int64])]
    var content: [Int64: Content]

    var flatIDs: [Int64] { sections.flatMap(\.ids) }

    static func == (lhs: SectionedState, rhs: SectionedState) -> Bool {
        lhs.sections.map(\.ids) == rhs.sections.map(\.ids)
            && lhs.sections.map(\.name) == rhs.sections.map(\.name)
            && lhs.content == rhs.content
    }

    var description: String {
        sections.map { "\($0.name): \($0.ids)" }.joined(separator: " | ")
    }

    /// Groups rows, already in order, into sections of consecutive rows whose section value is
    /// equal ignoring ASCII case (as NOCASE compares), each named after its first row; one
    /// unnamed section when not sectioned.
    init(ordered rows: [(id: Int64, section: String?, content: Content)], sectioned: Bool) {
        var sections: [(name: String, ids: [Int64])] = []
        var lastKey: String??
        for row in rows {
            let key: String? = row.section.map { String($0.map { $0.isASCII ? Character($0.lowercased()) : $0 }) }
            if sectioned, lastKey == .some(key) {
                sections[sections.count - 1].ids.append(row.id)
            } else if !sectioned, !sections.isEmpty {
                sections[0].ids.append(row.id)
            } else {
                sections.append((sectioned ? (row.section ?? "") : "", [row.id]))
                lastKey = .some(key)
            }
        }
        self.init(sections: sections, content: Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.content) }))
    }

    init(sections: [(name: String, ids: [Int64])], content: [Int64: Content]) {
        self.sections = sections
        self.content = content
    }
}

typealias ItemState = SectionedState<Item>

extension SectionedState where Content == Item {

    /// Runs the request's SQL and groups consecutive rows whose section value is equal ignoring
    /// ASCII case (as NOCASE compares).
    static func query(_ db: Database, sql: String, arguments: StatementArguments = [], sectioned: Bool) throws -> ItemState {
        let items = try Item.fetchAll(db, sql: sql, arguments: arguments)
        return ItemState(ordered: items.map { ($0.id!, $0.grp, $0) }, sectioned: sectioned)
    }
}
