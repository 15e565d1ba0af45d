import GRDB
import WorldCupModel

/// A team is a row of the SQLite store's `team` table, read and written through GRDB, its
/// columns named and ordered as ``Team/fields``.
extension Team: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "team"

    /// The table's columns in the order the schema makes them, which every `SELECT *` keeps.
    private static let tableColumns = fields.map(\.name)

    /// Reads a team by column position when the row starts with the table's columns in order
    /// (a `SELECT *`, and the results controller's `SELECT *, rowid`), by name otherwise.
    /// Decoding by name looks each column up ignoring case, folding every column name of every
    /// row, which a read of a whole big store feels.
    public init(row: Row) throws {
        let byPosition =
            row.count >= Self.tableColumns.count && zip(row.columnNames, Self.tableColumns).allSatisfy { $0 == $1 }
        var team = Team.unfilled
        for (index, field) in Self.fields.enumerated() {
            func value<Value: DatabaseValueConvertible>() throws -> Value {
                byPosition ? try row.decode(atIndex: index) : try row.decode(forColumn: field.name)
            }
            switch field.kind {
            case .rowID: team.id = try value()
            case let .text(path): team[keyPath: path] = try value()
            case let .optionalText(path): team[keyPath: path] = try value()
            case let .count(path, _): team[keyPath: path] = try value()
            }
        }
        self = team
    }

    /// Every field under its column.
    public func encode(to container: inout PersistenceContainer) {
        for field in Self.fields {
            switch field.value(of: self) {
            case let .text(text): container[field.name] = text
            case let .number(number): container[field.name] = number
            case .null: container[field.name] = nil as String?
            }
        }
    }
}
