import FetchedResults
import TestSupport
import Testing

/// A results controller's text search against the store's own answer (SQL's `instr`), the
/// same checks for every store: the controller's search methods as closures.
public struct TextSearchOracle {
    public var search: (_ text: String, _ previous: TextSearch?) -> TextSearch
    public var find: (_ search: TextSearch, _ from: IndexPath?, _ forward: Bool, _ includingStart: Bool) -> SearchHit?
    public var count: (_ search: inout TextSearch, _ duration: Duration) -> Void
    public var matchCount: (_ search: TextSearch) -> MatchCount
    public var ordinal: (_ indexPath: IndexPath, _ search: TextSearch) -> Int?
    /// Every visible row, in order.
    public var rows: () -> [(indexPath: IndexPath, rowID: Int64)]

    public init(
        search: @escaping (String, TextSearch?) -> TextSearch,
        find: @escaping (TextSearch, IndexPath?, Bool, Bool) -> SearchHit?,
        count: @escaping (inout TextSearch, Duration) -> Void,
        matchCount: @escaping (TextSearch) -> MatchCount,
        ordinal: @escaping (IndexPath, TextSearch) -> Int?,
        rows: @escaping () -> [(indexPath: IndexPath, rowID: Int64)]
    ) {
        (self.search, self.find, self.count, self.matchCount, self.ordinal, self.rows) = (
            search, find, count, matchCount, ordinal, rows
        )
    }

    /// Pieces of names: ASCII letters in both cases, accents (é is two bytes), CJK, LIKE's
    /// wildcards and escape, spaces, and a common syllable, so that sorted names share long
    /// prefixes (a chunk's shared prefix then ends inside the names).
    static let pieces = [
        "a", "A", "b", "B", "n", "o", "r", "é", "É", "日", "本", "%", "_", "\\", " ", "nor", "ab", "Nor",
    ]

    public static func randomName(_ random: inout SplitMix64) -> String {
        (0..<Int.random(in: 1...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    /// A row's zone, score and name. With `sharedStart`, nine rows in ten have the same zone and
    /// score and a name starting with "Nor": chunks of hundreds of rows then share a prefix that
    /// ends inside the name, and a match can start in that prefix and end in a key's own bytes.
    public static func randomRow(
        sharedStart: Bool, _ random: inout SplitMix64
    ) -> (zone: String?, score: Int, name: String) {
        let zones: [String?] = [nil, "Africa", "africa", "Asia", "Zone é", "日本", "ab", "Nor"]
        if sharedStart && Int.random(in: 0..<10, using: &random) > 0 {
            return ("Nor", 1, "Nor" + randomName(&random))
        }
        return (zones.randomElement(using: &random)!, Int.random(in: 0...2, using: &random), randomName(&random))
    }

    /// Texts to look for: parts of stored values (whole values too), random pieces, a zone's
    /// end with a name's start (which must not match across the two), and nothing at all.
    public static func queries(values: [String], count: Int, _ random: inout SplitMix64) -> [String] {
        var queries = ["", "nor", "NOR", "é", "É", "日本", "%", "_", "\\", "zzz"]
        while queries.count < count {
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                let value = Array(values.randomElement(using: &random)!)
                let start = Int.random(in: 0..<value.count, using: &random)
                queries.append(String(value[start..<Int.random(in: (start + 1)...value.count, using: &random)]))
            case 1: queries.append(values.randomElement(using: &random)!)
            case 2:
                queries.append(
                    (0..<Int.random(in: 1...3, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                        .joined())
            default:
                queries.append(
                    String(values.randomElement(using: &random)!.suffix(2))
                        + String(values.randomElement(using: &random)!.prefix(2)))
            }
        }
        return queries
    }

    /// Checks one search against `expected`, the row ids the store finds, in order: every match
    /// reached with `n` forward and `N` back, going round once; the count; each match's place;
    /// the next and previous match from random rows; a search narrowed from a shorter text.
    public func check(
        _ text: String, expected: [Int64], _ random: inout SplitMix64, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let context = Comment(rawValue: "text \(text.debugDescription)")
        var search = self.search(text, nil)
        let rows = self.rows()
        let index = Dictionary(uniqueKeysWithValues: rows.enumerated().map { ($1.indexPath, $0) })
        #expect(walk(search, forward: true, rows: rows) == expected, context, sourceLocation: sourceLocation)
        #expect(
            walk(search, forward: false, rows: rows) == expected.reversed(), context, sourceLocation: sourceLocation)

        while !matchCount(search).isComplete { count(&search, .zero) }
        #expect(
            matchCount(search) == MatchCount(matches: expected.count, isComplete: true), context,
            sourceLocation: sourceLocation)
        let places = Dictionary(uniqueKeysWithValues: expected.enumerated().map { ($1, $0 + 1) })
        let matching = rows.indices.filter { places[rows[$0].rowID] != nil }
        for _ in 0..<min(rows.count, 20) {
            let position = Int.random(in: 0..<rows.count, using: &random)
            let row = rows[position]
            #expect(ordinal(row.indexPath, search) == places[row.rowID], context, sourceLocation: sourceLocation)
            let next = matching.first { $0 > position } ?? matching.first
            let hit = find(search, row.indexPath, true, false)
            #expect(hit.map { index[$0.indexPath]! } == next, context, sourceLocation: sourceLocation)
            #expect(hit?.wrapped == next.map { $0 <= position }, context, sourceLocation: sourceLocation)
            let previous = matching.last { $0 < position } ?? matching.last
            let back = find(search, row.indexPath, false, false)
            #expect(back.map { index[$0.indexPath]! } == previous, context, sourceLocation: sourceLocation)
            #expect(back?.wrapped == previous.map { $0 >= position }, context, sourceLocation: sourceLocation)
            let here = find(search, row.indexPath, true, true)
            #expect(
                here.map { index[$0.indexPath]! } == (places[row.rowID] != nil ? position : next), context,
                sourceLocation: sourceLocation)
        }
        // Typing on: a search for a longer text narrowed from this counted one finds the same as a fresh one.
        let longer = text + Self.pieces.randomElement(using: &random)!
        var narrowed = self.search(longer, search)
        var fresh = self.search(longer, nil)
        #expect(
            walk(narrowed, forward: true, rows: rows) == walk(fresh, forward: true, rows: rows),
            "narrowed \(longer.debugDescription)", sourceLocation: sourceLocation)
        while !matchCount(narrowed).isComplete { count(&narrowed, .zero) }
        while !matchCount(fresh).isComplete { count(&fresh, .zero) }
        #expect(
            matchCount(narrowed) == matchCount(fresh), "narrowed \(longer.debugDescription)",
            sourceLocation: sourceLocation)
    }

    /// The row ids of every match, from the first (last) row on, one step at a time, until the
    /// search goes round.
    func walk(_ search: TextSearch, forward: Bool, rows: [(indexPath: IndexPath, rowID: Int64)]) -> [Int64] {
        let ids = Dictionary(uniqueKeysWithValues: rows.map { ($0.indexPath, $0.rowID) })
        var found: [Int64] = []
        var from: IndexPath?
        while let hit = find(search, from, forward, false), !hit.wrapped, found.count <= rows.count {
            found.append(ids[hit.indexPath]!)
            from = hit.indexPath
        }
        return found
    }
}
