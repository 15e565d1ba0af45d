import WorldCupModel

/// The movement marks shown beside teams' ranks (▲2, ▼1, NEW), each until a while after its
/// change, and what this screen last showed of its teams: the wins a change's old rank is
/// found from, and the rank, to redraw a row whose rank changed with no change of its own.
struct MovementMarks {
    /// How long a mark stays: 10 s, long enough to be read by someone who looks up at the
    /// screen after a cheer, short enough that the marks are about the last few wins, not
    /// the evening's.
    let duration = Duration.seconds(10)
    /// A change set of more rows than this (an import) marks none: no screen shows them.
    static let maximumRows = 256
    /// Wins remembered for at most this many teams: a million-team store scrolled through
    /// starts afresh rather than grow without end.
    static let maximumKnownTeams = 100_000
    private var marks: [Int64: (movement: RankMovement, until: ContinuousClock.Instant)] = [:]
    private var known: [Int64: Shown] = [:]

    /// What a row showed of its team.
    struct Shown {
        var zone: String
        var wins: Int
        var rank: Int
    }

    func movement(of rowID: Int64) -> RankMovement? { marks[rowID]?.movement }

    mutating func mark(_ rowID: Int64, _ movement: RankMovement, at now: ContinuousClock.Instant) {
        marks[rowID] = (movement, now + duration)
    }

    /// What this screen last saw of a team, or nil when it has not shown it.
    func seen(_ rowID: Int64) -> Shown? { known[rowID] }

    mutating func see(_ team: Team, rank: Int, rowID: Int64) {
        if known.count >= Self.maximumKnownTeams, known[rowID] == nil { known = [:] }
        known[rowID] = Shown(zone: team.qualifyingZone, wins: team.wins, rank: rank)
    }

    var nextExpiry: ContinuousClock.Instant? { marks.values.map(\.until).min() }

    /// Forgets the marks that are due and returns their row ids.
    mutating func removeExpired(at now: ContinuousClock.Instant) -> [Int64] {
        let expired = marks.filter { $0.value.until <= now }.map(\.key)
        for rowID in expired { marks[rowID] = nil }
        return expired
    }
}
