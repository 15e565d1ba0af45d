/// What one committed change did to one team of the standings, as `worldcup follow` tells it:
/// the team before and after, and its rank in its zone before and after.
///
/// Ranks are a sports table's: teams with equal wins in a zone share a rank, and the next team
/// takes the place after all of them (two teams on 4 wins are both 3rd, the next is 5th).
public struct StandingsChange: Equatable, Sendable {
    /// The team's row id.
    public var teamID: Int64
    /// The team before the change; nil for a team added.
    public var before: Team?
    /// The team after the change; nil for a team removed.
    public var after: Team?
    /// Its rank in its zone before the change; nil for a team added.
    public var oldRank: Int?
    /// Its rank in its zone after the change; nil for a team removed.
    public var newRank: Int?

    public init(teamID: Int64, before: Team?, after: Team?, oldRank: Int?, newRank: Int?) {
        self.teamID = teamID
        self.before = before
        self.after = after
        self.oldRank = oldRank
        self.newRank = newRank
    }

    /// The team as it is now, or as it was when it was removed.
    public var team: Team {
        // One of the two is always there: a change is made from a team before or after.
        after ?? before!
    }

    /// What kind of change it was.
    public enum Kind: String, Sendable {
        /// A team added.
        case new
        /// A team removed.
        case removed
        /// A team's wins, name or zone changed.
        case changed
    }

    public var kind: Kind {
        if before == nil { return .new }
        if after == nil { return .removed }
        return .changed
    }

    /// The change as one sentence: `Germany +1 → 8 wins, ▲2 to 1st in Europe`;
    /// `Wenderland NEW → 0 wins, 5th in Internets`; `Wenderland removed from Internets (had 0
    /// wins, 5th)`; `Germny renamed Germany, 8 wins, still 1st in Europe`. Names and zones as
    /// they are: the caller shows their control characters visibly.
    public var sentence: String {
        let team = team
        guard let before, let after else {
            if before == nil {
                return
                    "\(team.teamName) NEW → \(WinsText.of(team.wins)), \(Self.place(newRank, in: team.qualifyingZone))"
            }
            return "\(team.teamName) removed from \(team.qualifyingZone) "
                + "(had \(WinsText.of(team.wins)), \(Self.ordinal(oldRank ?? 1)))"
        }
        var subject = before.teamName
        if after.teamName != before.teamName { subject += " renamed \(after.teamName)," }
        let wins =
            after.wins == before.wins
            ? WinsText.of(after.wins)
            : "\(after.wins > before.wins ? "+" : "-")\(abs(after.wins - before.wins)) → \(WinsText.of(after.wins))"
        return "\(subject) \(wins), \(movement(before: before, after: after))"
    }

    /// `▲2 to 1st in Europe`, `▼1 to 4th in Europe`, `still 1st in Europe`; with a new zone,
    /// `1st in Asia (was 3rd in Europe)`.
    private func movement(before: Team, after: Team) -> String {
        let place = Self.place(newRank, in: after.qualifyingZone)
        guard NoCase.key(before.qualifyingZone) == NoCase.key(after.qualifyingZone) else {
            return place + " (was \(Self.place(oldRank, in: before.qualifyingZone)))"
        }
        guard let oldRank, let newRank, let movement = RankMovement(oldRank: oldRank, newRank: newRank) else {
            return "still " + place
        }
        return movement.mark + " to " + place
    }

    private static func place(_ rank: Int?, in zone: String) -> String {
        "\(ordinal(rank ?? 1)) in \(zone)"
    }

    /// 1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st, 22nd, 101st, 111th.
    public static func ordinal(_ number: Int) -> String {
        let suffix: String
        switch (number % 10, number % 100) {
        case (_, 11...13): suffix = "th"
        case (1, _): suffix = "st"
        case (2, _): suffix = "nd"
        case (3, _): suffix = "rd"
        default: suffix = "th"
        }
        return "\(number)\(suffix)"
    }
}
