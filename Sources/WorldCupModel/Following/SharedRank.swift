/// Sports-table ranks, the one rule every screen and `worldcup follow` rank teams by: teams with
/// equal wins in a zone share a rank, and the next team takes the place after all of them (two
/// teams on 4 wins are both 3rd, the next is 5th) — one more than the number of teams with more
/// wins.
public enum SharedRank {
    /// The rank of a team with `wins` among `count` teams ordered by wins, most first, whose
    /// wins `winsAt` gives by index: a binary search, so O(log count) reads of a zone that may
    /// hold a million teams.
    ///
    /// - Parameter hint: an index where the answer is likely to be near (a team's old place):
    ///   the search gallops out from it, reading the rows around it first, which a screen holds,
    ///   before it halves the rest.
    public static func rank(
        ofWins wins: Int, amongDescending count: Int, near hint: Int? = nil, winsAt: (Int) throws -> Int
    ) rethrows -> Int {
        // Every index below `low` has more wins; none from `high` on has.
        var low = 0
        var high = count
        if let hint {
            var probe = min(max(hint, 0), count)
            var step = 1
            if probe < count, try winsAt(probe) > wins {
                low = probe + 1
                while probe + step < count {
                    guard try winsAt(probe + step) > wins else {
                        high = probe + step
                        break
                    }
                    probe += step
                    low = probe + 1
                    step *= 2
                }
            } else {
                high = probe
                while probe - step >= 0 {
                    guard try winsAt(probe - step) <= wins else {
                        low = probe - step + 1
                        break
                    }
                    probe -= step
                    high = probe
                    step *= 2
                }
            }
        }
        while low < high {
            let middle = (low + high) / 2
            if try winsAt(middle) > wins { low = middle + 1 } else { high = middle }
        }
        return low + 1
    }
}
