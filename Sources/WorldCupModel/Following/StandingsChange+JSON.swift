import Foundation

extension StandingsChange {
    /// The change as one line of JSON (`worldcup follow --json`), keys sorted, control
    /// characters escaped as ``JSONText`` escapes them, without the newline:
    ///
    /// `{"change":"changed","id":7,"newRank":1,"newWins":8,"oldRank":3,"oldTeamName":"Germany",
    /// "oldWins":7,"oldZone":"Europe","position":"…","teamName":"Germany","wins":8,"zone":"Europe"}`
    ///
    /// `teamName`, `zone` and `wins` are the team as it is now (as it was, for a team removed);
    /// the `old…` values are null for a team added, the `new…` ones for a team removed.
    ///
    /// - Parameter position: the change feed's position after the change set (the event id
    ///   `serve` gives it), when the store has one.
    public func json(position: String?) throws -> String {
        let team = team
        let line = Line(
            change: kind.rawValue, id: teamID, teamName: team.teamName, zone: team.qualifyingZone, wins: team.wins,
            oldTeamName: before?.teamName, oldZone: before?.qualifyingZone, oldWins: before?.wins,
            newWins: after?.wins, oldRank: oldRank, newRank: newRank, position: position)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return JSONText.escapingControls(String(decoding: try encoder.encode(line), as: UTF8.self))
    }

    private struct Line: Encodable {
        var change: String
        var id: Int64
        var teamName: String
        var zone: String
        var wins: Int
        var oldTeamName: String?
        var oldZone: String?
        var oldWins: Int?
        var newWins: Int?
        var oldRank: Int?
        var newRank: Int?
        var position: String?

        /// Every key always there: null, not absent, as the seed's `imageName`.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(change, forKey: .change)
            try container.encode(id, forKey: .id)
            try container.encode(teamName, forKey: .teamName)
            try container.encode(zone, forKey: .zone)
            try container.encode(wins, forKey: .wins)
            try container.encode(oldTeamName, forKey: .oldTeamName)
            try container.encode(oldZone, forKey: .oldZone)
            try container.encode(oldWins, forKey: .oldWins)
            try container.encode(newWins, forKey: .newWins)
            try container.encode(oldRank, forKey: .oldRank)
            try container.encode(newRank, forKey: .newRank)
            try container.encode(position, forKey: .position)
        }

        enum CodingKeys: String, CodingKey {
            case change, id, teamName, zone, wins, oldTeamName, oldZone, oldWins, newWins, oldRank, newRank, position
        }
    }
}
