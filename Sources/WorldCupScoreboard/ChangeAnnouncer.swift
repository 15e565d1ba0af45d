/// What a screen reader says of the standings' changes: each change set as one short sentence
/// on the status line (the line a screen reader reads), at most one every ``interval`` so that
/// a busy evening never floods it; the change sets that come sooner are counted and said with
/// the next sentence ("… (and 3 more changes)").
struct ChangeAnnouncer {
    /// Long enough for a screen reader to finish a sentence before the next replaces it.
    static let interval = Duration.seconds(2)

    private var lastSaid: ContinuousClock.Instant?
    /// The latest sentence not yet said, and how many changes it stands for.
    private var waiting: (sentence: String, changes: Int)?

    /// Takes in a change set's sentence, for `changes` teams; returns what to say now, or nil
    /// when it must wait (``nextDue``).
    mutating func add(_ sentence: String, changes: Int, at now: ContinuousClock.Instant) -> String? {
        let total = (waiting?.changes ?? 0) + changes
        waiting = (sentence, total)
        if let lastSaid, now - lastSaid < Self.interval { return nil }
        return takeWaiting(at: now)
    }

    /// When the sentence waiting may be said, if one waits.
    var nextDue: ContinuousClock.Instant? {
        guard waiting != nil else { return nil }
        return lastSaid.map { $0 + Self.interval }
    }

    /// The sentence waiting, once it is due.
    mutating func takeDue(at now: ContinuousClock.Instant) -> String? {
        guard let due = nextDue, due <= now else { return nil }
        return takeWaiting(at: now)
    }

    private mutating func takeWaiting(at now: ContinuousClock.Instant) -> String? {
        guard let (sentence, changes) = waiting else { return nil }
        waiting = nil
        lastSaid = now
        let more = changes - 1
        return more > 0 ? sentence + " (and \(more) more change\(more == 1 ? "" : "s"))" : sentence
    }
}
