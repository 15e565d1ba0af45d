import Foundation
import TerminalUI
import WorldCupModel

/// Screen-reader mode (`--screen-reader`, or `WORLDCUP_SCREEN_READER`): the hardware cursor
/// stays visible on the selected row, the selection is marked with a character as well as
/// colour, and each change set — this scoreboard's, other terminals', phones' — is said as one
/// short sentence on the status line, as `worldcup follow` prints it ("Germany +1 → 8 wins, ▲2
/// to 1st in Europe"), at most one every two seconds (``ChangeAnnouncer``).
extension ScoreboardScreen {
    /// The selection's mark in screen-reader mode: plain ASCII, which every terminal and
    /// braille display shows.
    static let selectionMark: Character = ">"

    /// Says what a change set did, from the rows it changed: its first team as `follow` tells
    /// it, measured from what this screen last showed of the team (called before the marks
    /// take in the change), and how many more teams changed.
    func announce(_ rows: ResultsTableBinding.ChangedRows, at now: ContinuousClock.Instant) {
        let changed = rows.inserted + rows.moved.map(\.rowID)
        guard isScreenReaderMode, let rowID = changed.first,
            let path = controller.indexPath(forRowID: rowID),
            let team = try? controller.objectIfPresent(at: path)
        else { return }
        let newRank = shownRank(of: team, at: TableIndex(path))
        let sentence: String
        if rows.inserted.contains(rowID) {
            sentence = StandingsChange(teamID: rowID, before: nil, after: team, oldRank: nil, newRank: newRank).sentence
        } else if let shown = movements.seen(rowID), let newRank {
            var before = team
            before.qualifyingZone = shown.zone
            before.wins = shown.wins
            sentence =
                StandingsChange(teamID: rowID, before: before, after: team, oldRank: shown.rank, newRank: newRank)
                .sentence
        } else {
            let place = newRank.map { ", \(StandingsChange.ordinal($0)) in \(team.qualifyingZone)" } ?? ""
            sentence = "\(team.teamName) now \(WinsText.of(team.wins))" + place
        }
        if let text = announcer.add(TerminalText.sanitized(sentence), changes: changed.count, at: now) {
            say(text)
        }
    }

    /// Says the sentence that waited for its turn, once due; returns whether it did.
    func sayDueAnnouncement(at now: ContinuousClock.Instant) -> Bool {
        guard let text = announcer.takeDue(at: now) else { return false }
        say(text)
        return true
    }

    /// When a sentence that waits for its turn is due.
    public var nextAnnouncementDue: ContinuousClock.Instant? { announcer.nextDue }

    /// Puts a sentence on the status line, unless it holds a message of this scoreboard's own
    /// (a refusal, an undo) that the next key will clear.
    private func say(_ text: String) {
        guard message == nil || message == lastAnnouncement else { return }
        message = text
        lastAnnouncement = text
    }
}
