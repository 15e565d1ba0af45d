import Foundation
import TerminalUI
import WorldCupModel

/// Renders standings as aligned text (the JSON is ``StandingsJSON``, which `serve` answers too).
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

    private static func displayName(_ text: String) -> String {
        TerminalText.sanitized(text)
    }
}
