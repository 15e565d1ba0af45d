/// The teams grouped by qualifying zone, in standings order: what `list` prints.
public struct ZoneStanding: Equatable, Sendable {
    public var zone: String
    public var teams: [Team]

    public init(zone: String, teams: [Team]) {
        self.zone = zone
        self.teams = teams
    }
}
