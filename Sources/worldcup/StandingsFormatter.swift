import Foundation
import TerminalUI
import WorldCupModel

/// Renders standings as aligned text or as JSON.
enum StandingsFormatter {
    /// The widest a name column grows before names are truncated with "…".
    static let maximumNameColumns = 40

    /// One header line per zone ("Africa (4 teams)"), then one line per team with its name
    /// padded to a common display width and its wins right-aligned, wide characters included.
    ///
    /// - Parameter maximumNameColumns: names wider than this are cut with "…" (a terminal's
    ///   view); nil keeps every name whole (a pipe or a file).
    static func text(_ standings: [ZoneStanding], maximumNameColumns: Int? = maximumNameColumns) -> String {
        let teams = standings.flatMap(\.teams)
        let widest = teams.map { TextWidth.columns(of: displayName($0.teamName)) }.max() ?? 0
        let nameWidth = min(maximumNameColumns ?? widest, widest)
        let winsWidth = teams.map { String($0.wins).count }.max() ?? 1
        var lines: [String] = []
        for (index, standing) in standings.enumerated() {
            if index > 0 { lines.append("") }
            let count = standing.teams.count
            lines.append("\(displayName(standing.zone)) (\(count) team\(count == 1 ? "" : "s"))")
            for team in standing.teams {
                let wins = String(team.wins)
                let name = TextWidth.fit(displayName(team.teamName), toColumns: nameWidth)
                lines.append("  " + name + "  " + String(repeating: " ", count: winsWidth - wins.count) + wins)
            }
        }
        return lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    }

    /// `[{"zone": …, "teams": [{"teamName": …, "qualifyingZone": …, "imageName": …, "wins": …}]}]`.
    static func json(_ standings: [ZoneStanding]) throws -> String {
        struct Section: Encodable {
            var zone: String
            var teams: [Entry]
        }
        struct Entry: Encodable {
            var teamName: String
            var qualifyingZone: String
            var imageName: String?
            var wins: Int
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(teamName, forKey: .teamName)
                try container.encode(qualifyingZone, forKey: .qualifyingZone)
                try container.encode(imageName, forKey: .imageName)  // null, not absent, like the seed
                try container.encode(wins, forKey: .wins)
            }
            enum CodingKeys: String, CodingKey { case teamName, qualifyingZone, imageName, wins }
        }
        let sections = standings.map { standing in
            Section(zone: standing.zone, teams: standing.teams.map {
                Entry(teamName: $0.teamName, qualifyingZone: $0.qualifyingZone, imageName: $0.imageName, wins: $0.wins)
            })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(sections), as: UTF8.self)
        return TerminalText.escapingControls(inJSON: json) + "\n"
    }

    private static func displayName(_ text: String) -> String {
        TerminalText.sanitized(text)
    }
}
