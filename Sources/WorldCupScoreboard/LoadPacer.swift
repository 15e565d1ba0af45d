import WorldCupModel

/// How the scoreboard loads big standings behind its first frame: the first rows at once, then
/// steps sized so that each takes about ``stepMilliseconds`` — a key that arrives meanwhile
/// waits for one step at most — measured after each step, whatever the store or the machine.
struct LoadPacer {
    /// Teams fetched before the first frame: several screenfuls, a millisecond's read.
    static let firstRows = 1_000
    /// How long one step of the load should take.
    static let stepMilliseconds = 8.0

    /// Teams the next step reads.
    private(set) var rows = 2_000

    /// Runs one step of `rows` teams and sizes the next one after its time.
    mutating func step(_ load: (Int) throws -> Void) rethrows {
        let start = ContinuousClock.now
        try load(rows)
        let took = max(0.5, (ContinuousClock.now - start) / .milliseconds(1))
        rows = min(100_000, max(500, Int(Double(rows) * Self.stepMilliseconds / took)))
    }
}
