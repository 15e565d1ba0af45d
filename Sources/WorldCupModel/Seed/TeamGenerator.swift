/// Makes big, realistic stores for benchmarks and trials: `count` teams with made-up country
/// names (some accented, some in CJK script, so wide characters are exercised) spread over a
/// few dozen zones, with random wins. The same seed always gives the same teams.
public struct TeamGenerator {
    public static let zones = [
        "Africa", "Asia", "Europe", "North, Central America & Caribbean", "South America", "Oceania",
        "Alpine League", "Baltic Cup", "Caspian Circuit", "Danube Conference", "Eastern Steppe", "Fjord Series",
        "Gulf Shield", "Highland Trophy", "Indian Ocean Cup", "Jade Coast", "Kalahari League", "Levant Series",
        "Mekong Trophy", "Nordic Circle", "Outback Cup", "Pacific Rim", "Queensland Open", "Rift Valley League",
        "Sahel Cup", "Tundra Series", "Ural Conference", "Volga Trophy", "Westerlies Shield", "Yangtze League",
        "東アジア", "Ísland Conference", "Zagros Cup", "Andes Circuit", "Sierra Series", "Coral Sea League",
    ]
    // Names are put together as UTF-8 bytes: a million of them as Swift strings (joined,
    // uppercased, folded, hashed) would take seconds.
    private static let prefixes = WordList([
        "", "", "", "", "New ", "North ", "South ", "East ", "West ", "Upper ", "Lower ", "Saint ", "San ", "Grand ",
    ])
    private static let syllables = WordList([
        "ba", "lo", "ri", "ma", "ne", "to", "ka", "sa", "vi", "do", "ar", "el", "or", "un", "te",
        "mon", "gar", "bel", "cor", "dan", "fin", "hal", "ist", "jor", "kel", "lum", "nor", "per", "rus", "tal",
    ])
    private static let endings = WordList([
        "ia", "land", "stan", "ova", "ique", "ana", "ay", "esh", "or", "ein", "ica", "uay",
    ])
    private static let accented = WordList(["É", "Ø", "Å", "Ç", "Ü", "Ñ"])
    private static let kanji = WordList([
        "東", "西", "南", "北", "山", "川", "海", "島", "森", "風", "星", "龍",
    ])

    private var random: SplitMixGenerator
    /// The names given so far, folded as the store compares them (``NoCase``).
    private var used = ByteStringSet()
    /// For a folded name given more than once, by its hash: the first number its next copy may
    /// take ("Tolia 7"). Without it a common name would try 2, 3, 4… again at each copy, and a
    /// million names would take a quadratic time. Only a hint: the set of names used decides, so
    /// two names with one hash would still get unique numbers.
    private var nextSuffix = SuffixHints()
    /// The name being made, and folded (reused: one buffer each for a million names).
    private var name: [UInt8] = [], folded: [UInt8] = []

    public init(seed: UInt64) {
        random = SplitMixGenerator(seed: seed)
    }

    /// The next `count` teams, every name new (ignoring ASCII case, as the store compares).
    public mutating func teams(count: Int, zones zoneCount: Int) -> [SeedEntry] {
        var teams: [SeedEntry] = []
        teams.reserveCapacity(count)
        forEachTeam(count: count, zones: zoneCount) { teams.append($0) }
        return teams
    }

    /// The image name of every generated team.
    public static let imageName = "generated-flag"

    /// Hands the next `count` teams to `body` one by one (the same teams ``teams(count:zones:)``
    /// returns), so a writer need not hold them all.
    public mutating func forEachTeam(count: Int, zones zoneCount: Int, _ body: (SeedEntry) throws -> Void) rethrows {
        try forEachTeamUTF8(count: count, zones: zoneCount) { name, zone, wins in
            var entry = Self.template(zone: Self.zones[zone])
            entry.teamName = String(decoding: name, as: UTF8.self)
            entry.wins = wins
            try body(entry)
        }
    }

    /// What every generated team of `zone` shares: all but its name (empty here) and wins (0).
    public static func template(zone: String) -> SeedEntry {
        SeedEntry(teamName: "", qualifyingZone: zone, imageName: imageName, wins: 0)
    }

    /// The same teams as ``forEachTeam(count:zones:_:)``, each as its name's UTF-8 bytes, its
    /// zone's index in ``zones`` and its wins: a writer of a million teams need not make a
    /// million strings.
    public mutating func forEachTeamUTF8(
        count: Int, zones zoneCount: Int, _ body: (_ name: [UInt8], _ zone: Int, _ wins: Int) throws -> Void
    ) rethrows {
        let zoneCount = max(1, min(zoneCount, Self.zones.count))
        // Room for every name at once: growing the set a million names long would hash them all
        // again at each doubling.
        used.reserveCapacity(used.count + count)
        for _ in 0..<count {
            let zone = Int.random(in: 0..<zoneCount, using: &random)
            // Wins skew low, as in a real tournament: most teams win a few games, few win many.
            let wins = Int.random(in: 0...4, using: &random) * Int.random(in: 0...6, using: &random)
            makeUniqueName()
            try body(name, zone, wins)
        }
    }

    /// Makes a name no team had yet in ``name``.
    private mutating func makeUniqueName() {
        makeName()
        folded.removeAll(keepingCapacity: true)
        for byte in name { folded.append((0x41...0x5A).contains(byte) ? byte + 0x20 : byte) }
        guard !used.insert(folded) else { return }
        let base = ByteStringSet.hash(folded)
        var suffix = nextSuffix.number(for: base)
        let foldedCount = folded.count
        while true {
            Self.appendSuffix(suffix, to: &folded)
            if used.insert(folded) { break }
            folded.removeSubrange(foldedCount...)
            suffix += 1
        }
        nextSuffix.note(suffix + 1, for: base)
        Self.appendSuffix(suffix, to: &name)
    }

    /// Appends " 12" (a space and the number's digits) without making a string.
    private static func appendSuffix(_ number: Int, to bytes: inout [UInt8]) {
        bytes.append(0x20)
        let start = bytes.count
        var rest = number
        repeat {
            bytes.append(0x30 + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }

    /// Makes a name in ``name``.
    private mutating func makeName() {
        name.removeAll(keepingCapacity: true)
        switch Int.random(in: 0..<20, using: &random) {
        case 0:
            for _ in 0..<Int.random(in: 2...4, using: &random) {
                Self.kanji.appendRandomWord(to: &name, using: &random)
            }
        case 1:
            Self.accented.appendRandomWord(to: &name, using: &random)
            let start = name.count
            appendWord()
            name.remove(at: start)  // the accented letter takes the capital's place
        default:
            Self.prefixes.appendRandomWord(to: &name, using: &random)
            appendWord()
        }
    }

    /// Appends a made-up word of ASCII letters, capitalised, to ``name``.
    private mutating func appendWord() {
        let start = name.count
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            Self.syllables.appendRandomWord(to: &name, using: &random)
        }
        Self.endings.appendRandomWord(to: &name, using: &random)
        name[start] -= 0x20
    }
}

/// Words as UTF-8, one after another in one buffer: appending one copies its bytes, where an
/// array of arrays retained and released the word's own array at each of a million names'
/// several words.
private struct WordList {
    private let bytes: [UInt8]
    /// Where each word starts in `bytes`, and where the last one ends.
    private let starts: [Int]

    init(_ words: [String]) {
        bytes = words.flatMap(\.utf8)
        starts = words.reduce(into: [0]) { $0.append($0.last! + $1.utf8.count) }
    }

    /// Appends a word picked at random, as `randomElement(using:)` would pick it.
    func appendRandomWord(to name: inout [UInt8], using random: inout SplitMixGenerator) {
        let index = Int.random(in: 0..<(starts.count - 1), using: &random)
        bytes.withUnsafeBufferPointer { name.append(contentsOf: $0[starts[index]..<starts[index + 1]]) }
    }
}

/// A small seeded generator (SplitMix64), so generated stores are reproducible.
struct SplitMixGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
