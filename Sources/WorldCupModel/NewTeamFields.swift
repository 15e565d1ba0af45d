import Foundation

/// A new team's name and zone, trimmed and checked as every store checks them before writing.
package struct NewTeamFields {
    package let name: String
    package let zone: String

    package init(name: String, zone: String) throws {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        let zone = zone.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw WorldCupError.emptyField(field: "team name") }
        guard !zone.isEmpty else { throw WorldCupError.emptyField(field: "qualifying zone") }
        guard !name.contains(SeedEntry.nul) else { throw WorldCupError.nulInField(field: "team name") }
        guard !zone.contains(SeedEntry.nul) else { throw WorldCupError.nulInField(field: "qualifying zone") }
        let limit = SeedEntry.maximumTextLength
        guard name.count <= limit else {
            throw WorldCupError.fieldTooLong(field: "team name", length: name.count, limit: limit)
        }
        guard zone.count <= limit else {
            throw WorldCupError.fieldTooLong(field: "qualifying zone", length: zone.count, limit: limit)
        }
        self.name = name
        self.zone = zone
    }
}
