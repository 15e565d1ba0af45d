import Foundation

/// A new team's name and zone, trimmed and checked as every store checks them before writing.
package struct NewTeamFields {
    package let name: String
    package let zone: String

    package init(name: String, zone: String) throws {
        self.name = try Self.checked(name, field: "team name")
        self.zone = try Self.checked(zone, field: "qualifying zone")
    }

    /// A team's new name (a rename's), trimmed and checked as an added team's.
    package static func checkedName(_ name: String) throws -> String {
        try checked(name, field: "team name")
    }

    private static func checked(_ text: String, field: String) throws -> String {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw WorldCupError.emptyField(field: field) }
        guard !text.contains(SeedEntry.nul) else { throw WorldCupError.nulInField(field: field) }
        let limit = SeedEntry.maximumTextLength
        guard text.count <= limit else {
            throw WorldCupError.fieldTooLong(field: field, length: text.count, limit: limit)
        }
        return text
    }
}
