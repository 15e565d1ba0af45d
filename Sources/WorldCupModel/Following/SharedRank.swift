/// Sports-table ranks, the one rule every screen and `worldcup follow` rank teams by: teams with
/// equal wins in a zone share a rank, and the next team takes the place after all of them (two
/// teams on 4 wins are both 3rd, the next is 5th) — one more than the number of teams with more
/// wins.
public enum SharedRank {
    /// The rank of a team with `wins` among `count` teams ordered by wins, most first, whose
    /// wins `winsAt` gives by index: a binary search, so O(log count) reads of a zone that may
    /// hold a million teams.
    public static func rank(ofWins wins: Int, amongDescending count: Int, winsAt: (Int) throws -> Int) rethrows -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if try winsAt(middle) > wins { low = middle + 1 } else { high = middle }
        }
        return low + 1
    }
}
