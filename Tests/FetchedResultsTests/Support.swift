import ControllerOracles
import FetchedResultsSQLite
import Foundation
import GRDB
import TestSupport

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

/// Records every callback of a controller, batch by batch.
typealias Recorder = CallbackLog<Item>

typealias ItemState = SectionedState<Item>

extension SectionedState where Content == Item {

    /// Runs the request's SQL and groups consecutive rows whose section value is equal ignoring
    /// ASCII case (as NOCASE compares).
    static func query(
        _ db: Database, sql: String, arguments: StatementArguments = [], sectioned: Bool
    ) throws -> ItemState {
        let items = try Item.fetchAll(db, sql: sql, arguments: arguments)
        return ItemState(ordered: items.map { ($0.id!, $0.grp, $0) }, sectioned: sectioned)
    }
}

extension ColumnSortDescriptor.Collation {
    /// The collation's name in SQLite's SQL, for the tests' own oracle queries.
    var sqlite: String { self == .caseInsensitive ? "NOCASE" : "BINARY" }
}
