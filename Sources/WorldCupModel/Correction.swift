/// What an organiser's correction (``ScoreStore/setWins(of:to:)``,
/// ``ScoreStore/renameTeam(_:to:)``, ``ScoreStore/removeTeam(named:)``) did to one team.
public struct Correction: Equatable, Sendable {
    /// The team before the correction.
    public var before: Team
    /// The team after it; nil once removed.
    public var after: Team?

    public init(before: Team, after: Team?) {
        self.before = before
        self.after = after
    }
}
