import WorldCupModel

/// How the scoreboard loads big standings behind its first frame: the first rows at once, then
/// steps sized so that each takes about ``stepMilliseconds`` — a key that arrives meanwhile
/// waits for one step at most — measured after each step, whatever the store or the machine.
///
/// A step is sized by the slowest pace seen lately, not the last one: a step that ends a zone
/// costs less per row than one inside a zone, and a machine busy with other work slows a step
/// now and then. The pace drops at once after a slow step and rises by a quarter at most per
/// step, so that no step is sized by a lucky one before it.
struct LoadPacer {
    /// Teams fetched before the first frame: several screenfuls, a millisecond's read.
    static let firstRows = 1_000
    /// How long one step of the load should take.
    static let stepMilliseconds = 8.0
    /// How much faster than the pace before it the next step may be sized.
    static let largestSpeedUp = 1.25

    /// Teams the next step reads.
    private(set) var rows = 2_000
    /// Teams per millisecond the steps are sized by; nil before the first step.
    private var pace: Double?

    /// Runs one step of `rows` teams and sizes the next one after its time; `load` returns how
    /// many teams the step added to the standings. A step whose rows were read ahead adds as
    /// many as the step before it asked for (on SQLite at most `SQLiteStore.readAheadRowLimit`);
    /// one that reads the cache file adds none until the last, and counts the `rows` it read.
    mutating func step(_ load: (Int) throws -> Int) rethrows {
        let start = ContinuousClock.now
        let added = try load(rows)
        let took = max(0.1, (ContinuousClock.now - start) / .milliseconds(1))
        let measured = Double(added > 0 ? added : rows) / took
        let paced = pace.map { min(measured, $0 * Self.largestSpeedUp) } ?? measured
        pace = paced
        rows = min(100_000, max(500, Int(paced * Self.stepMilliseconds)))
    }
}
