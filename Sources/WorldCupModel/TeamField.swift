/// One stored field of a team, described once: what it holds, where it lives on ``Team``, the
/// name its column and JSON key share, and the key the server's change events give it.
///
/// Every layer that stores, reads or writes a team's fields walks ``Team/fields`` instead of
/// naming them: the stores' column lists, decoding and inserts, the seed readers and writer,
/// `worldcup list --json` and the events `serve` sends. A new field is then a property and an
/// entry in that table, plus a migration per store.
public struct TeamField: Sendable {
    /// What the field holds, with the key path that reads and writes it on a ``Team``.
    public enum Kind: Sendable {
        /// The store's row id, which the store assigns: no file or command gives it.
        case rowID
        /// Text that is never blank: trimmed, at most ``SeedEntry/maximumTextLength``
        /// characters, no NUL.
        case text(WritableKeyPath<Team, String> & Sendable)
        /// Text or nothing (null, or left out of a seed file); no NUL.
        case optionalText(WritableKeyPath<Team, String?> & Sendable)
        /// A whole number, 0 or more. A seed file may leave it out when it has a `seedDefault`,
        /// which it then takes; without one, the file must give it.
        case count(WritableKeyPath<Team, Int> & Sendable, seedDefault: Int? = nil)
    }

    /// The attribute's name: ``Team``'s property, the SQLite column (the PostgreSQL one is its
    /// snake-case form) and the key in seed files and `worldcup list --json`.
    public let name: String
    public let kind: Kind
    /// The field's key in `serve`'s change events and snapshots; nil when they leave it out.
    public let eventKey: String?

    public init(_ name: String, _ kind: Kind, eventKey: String? = nil) {
        self.name = name
        self.kind = kind
        self.eventKey = eventKey
    }

    /// Whether the user sets the field (through seed and import files, and the commands), not
    /// the store: every field but the row id. Only these are in files, in `list --json` and in
    /// an insert's columns.
    public var isUserSet: Bool {
        if case .rowID = kind { return false }
        return true
    }

    /// Whether the field holds a number (the row id or a count), not text.
    public var isNumber: Bool {
        switch kind {
        case .rowID, .count: true
        case .text, .optionalText: false
        }
    }

    /// The field's value on `team`.
    public func value(of team: Team) -> TeamFieldValue {
        switch kind {
        case .rowID: team.id.map { .number(Int($0)) } ?? .null
        case let .text(path): .text(team[keyPath: path])
        case let .optionalText(path): team[keyPath: path].map(TeamFieldValue.text) ?? .null
        case let .count(path, _): .number(team[keyPath: path])
        }
    }
}

/// A field's value, for the layers that handle every field alike.
public enum TeamFieldValue: Equatable, Sendable {
    case text(String)
    case number(Int)
    case null
}

extension Team {
    /// The user-set fields (``TeamField/isUserSet``), in ``fields`` order: a file's keys, the
    /// columns an insert gives.
    public static let userFields = fields.filter(\.isUserSet)

    /// A team with every field empty, zero or nil, for a reader to fill in field by field.
    package static let unfilled = Team(teamName: "", qualifyingZone: "", imageName: nil, wins: 0)
}
