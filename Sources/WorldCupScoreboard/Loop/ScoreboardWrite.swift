import WorldCupModel

/// A change to the store that a key asks for; the loop runs it as one transaction.
public enum ScoreboardWrite: Equatable, Sendable {
    /// A win for a team, or the undo of one, with the key that makes it count once.
    case score(Score)
    /// Taking back this scoreboard's last change.
    case undo(UndoEntry)
    /// Doing again the change this scoreboard's last undo took back.
    case redo(UndoEntry)
    /// The secret dialog's new team.
    case addTeam(name: String, zone: String)

    /// A win or the undo of a win, with its key: every score this scoreboard makes. One whose
    /// commit reply was lost with the connection is in doubt: it is kept and done again with
    /// the same key once the store is back, and the key makes it count once.
    public struct Score: Equatable, Sendable {
        var key: ScoreKey
        var teamID: Int64
        var name: String
        var isUndo: Bool
    }

    /// One change this scoreboard made, as undo (and redo, once undone) needs it.
    public enum UndoEntry: Equatable, Sendable {
        case win(teamID: Int64, name: String)
        /// The team as this scoreboard added it: undo removes it only while it is still so.
        case added(Team)
    }
}
