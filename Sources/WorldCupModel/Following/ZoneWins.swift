/// The wins of every team in one zone, kept sorted, for sports-table ranks (``SharedRank``).
struct ZoneWins {
    /// Ascending.
    private var sorted: [Int] = []

    var isEmpty: Bool { sorted.isEmpty }

    mutating func insert(_ wins: Int) {
        sorted.insert(wins, at: firstIndex { $0 >= wins })
    }

    mutating func remove(_ wins: Int) {
        let index = firstIndex { $0 >= wins }
        if index < sorted.count && sorted[index] == wins { sorted.remove(at: index) }
    }

    /// The rank of a team with `wins` among these teams (itself included).
    func rank(of wins: Int) -> Int {
        SharedRank.rank(ofWins: wins, amongDescending: sorted.count) { sorted[sorted.count - 1 - $0] }
    }

    /// The first index whose wins satisfy `isAtOrPast`, which holds from some index on
    /// (binary search).
    private func firstIndex(where isAtOrPast: (Int) -> Bool) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrPast(sorted[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
