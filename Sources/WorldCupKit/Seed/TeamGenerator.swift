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
    private static let prefixes = ["", "", "", "", "New ", "North ", "South ", "East ", "West ", "Upper ", "Lower ", "Saint ", "San ", "Grand "]
    private static let syllables = ["ba", "lo", "ri", "ma", "ne", "to", "ka", "sa", "vi", "do", "ar", "el", "or", "un", "te",
                                    "mon", "gar", "bel", "cor", "dan", "fin", "hal", "ist", "jor", "kel", "lum", "nor", "per", "rus", "tal"]
    private static let endings = ["ia", "land", "stan", "ova", "ique", "ana", "ay", "esh", "or", "ein", "ica", "uay"]
    private static let accented = ["É", "Ø", "Å", "Ç", "Ü", "Ñ"]
    private static let kanji = ["東", "西", "南", "北", "山", "川", "海", "島", "森", "風", "星", "龍"]

    private var random: SplitMixGenerator
    private var used: Set<String> = []

    public init(seed: UInt64) {
        random = SplitMixGenerator(seed: seed)
    }

    /// The next `count` teams, every name new (ignoring ASCII case, as the store compares).
    public mutating func teams(count: Int, zones zoneCount: Int) -> [SeedEntry] {
        let zones = Array(Self.zones.prefix(max(1, min(zoneCount, Self.zones.count))))
        used.reserveCapacity(used.count + count)
        return (0..<count).map { _ in
            let zone = zones.randomElement(using: &random)!
            // Wins skew low, as in a real tournament: most teams win a few games, few win many.
            let wins = Int.random(in: 0...4, using: &random) * Int.random(in: 0...6, using: &random)
            return SeedEntry(teamName: uniqueName(), qualifyingZone: zone, imageName: "generated-flag", wins: wins)
        }
    }

    private mutating func uniqueName() -> String {
        let base = makeName()
        var name = base
        var suffix = 2
        while !used.insert(NoCase.key(name)).inserted {
            name = "\(base) \(suffix)"
            suffix += 1
        }
        return name
    }

    private mutating func makeName() -> String {
        switch Int.random(in: 0..<20, using: &random) {
        case 0:
            return (0..<Int.random(in: 2...4, using: &random)).map { _ in Self.kanji.randomElement(using: &random)! }.joined()
        case 1:
            return Self.accented.randomElement(using: &random)! + word().dropFirst()
        default:
            return Self.prefixes.randomElement(using: &random)! + word()
        }
    }

    private mutating func word() -> String {
        let middle = (0..<Int.random(in: 1...3, using: &random)).map { _ in Self.syllables.randomElement(using: &random)! }.joined()
        let text = middle + Self.endings.randomElement(using: &random)!
        return text.prefix(1).uppercased() + text.dropFirst()
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
