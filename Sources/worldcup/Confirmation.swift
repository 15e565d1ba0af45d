import Foundation
import TerminalUI
import WorldCupModel

/// Asks the person at the terminal before a change that cannot be undone.
enum Confirmation {
    /// Asks on stderr whether to remove the team named `name` (found first, so that a mistyped
    /// name is said before anything is asked), and reads the answer from stdin.
    ///
    /// - Throws: ``WorldCupError/unknownTeam(name:suggestions:)``, or
    ///   ``WorldCupError/notConfirmed(team:)`` for any answer but y or yes.
    static func ask(toRemove name: String, in store: any ScoreStore) throws {
        let typed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        let teams = try store.teamsInStandingsOrder()
        guard let team = teams.first(where: { NoCase.key($0.teamName) == NoCase.key(typed) }) else {
            throw WorldCupError.unknownTeam(
                name: typed, suggestions: NameSuggestions.closest(to: typed, in: teams.map(\.teamName)))
        }
        StandardError.write(
            TerminalText.sanitized(
                "Remove \(team.teamName) (\(team.qualifyingZone), \(WinsText.of(team.wins))) from \(store.displayName)?"
            )
                + " It cannot be undone. [y/N] ")
        let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else { throw WorldCupError.notConfirmed(team: team.teamName) }
    }
}
