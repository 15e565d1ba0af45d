/// The teams grouped by qualifying zone, in standings order: what `list` prints.
public struct ZoneStanding: Equatable, Sendable {
    public var zone: String
    public var teams: [Team]

    /// Groups teams that are already in standings order into one standing per zone.
    public static func group(_ teams: [Team]) -> [ZoneStanding] {
        var standings: [ZoneStanding] = []
        for team in teams {
            if standings.last.map({ NoCase.key($0.zone) == NoCase.key(team.qualifyingZone) }) == true {
                standings[standings.count - 1].teams.append(team)
            } else {
                standings.append(ZoneStanding(zone: team.qualifyingZone, teams: [team]))
            }
        }
        return standings
    }
}
