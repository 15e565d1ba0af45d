/// Finds the names a user most likely meant when the one typed matches no team.
public enum NameSuggestions {
    /// Up to `limit` names close to `query`: containing it, or within a small edit distance,
    /// nearest first.
    public static func closest(to query: String, in names: [String], limit: Int = 3) -> [String] {
        let wanted = Array(query.lowercased())
        guard !wanted.isEmpty else { return [] }
        let tolerance = max(2, wanted.count / 3)
        var scored: [(distance: Int, name: String)] = []
        for name in names {
            let candidate = Array(name.lowercased())
            if candidate.count >= wanted.count && name.lowercased().contains(query.lowercased()) {
                scored.append((0, name))
            } else if abs(candidate.count - wanted.count) <= tolerance {
                let distance = editDistance(wanted, candidate)
                if distance <= tolerance { scored.append((distance, name)) }
            }
        }
        return scored.sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }.prefix(limit).map(\.name)
    }

    /// Levenshtein distance between two character sequences.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...max(1, a.count) where !a.isEmpty {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
