/// How a team's rank in its zone changed, as the screens mark it beside the rank and
/// `worldcup follow` tells it: ▲2 (up two places), ▼1, or NEW for a team that just arrived.
public enum RankMovement: Equatable, Sendable {
    case up(Int)
    case down(Int)
    case new

    /// The movement from `oldRank` to `newRank`; nil when the rank stayed (a team that passed a
    /// tied team by name keeps its shared rank: nothing to mark).
    public init?(oldRank: Int, newRank: Int) {
        if newRank < oldRank {
            self = .up(oldRank - newRank)
        } else if newRank > oldRank {
            self = .down(newRank - oldRank)
        } else {
            return nil
        }
    }

    /// `▲2`, `▼1`, `NEW`: readable without colour.
    public var mark: String {
        switch self {
        case .up(let places): "▲\(places)"
        case .down(let places): "▼\(places)"
        case .new: "NEW"
        }
    }
}
