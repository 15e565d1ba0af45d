import Synchronization

/// How fast one scorer may score: a token bucket per client (its address), holding
/// ``perSecond`` taps and refilled at that rate, so that a finger tapping as fast as it can
/// always gets through and a stuck button or a script cannot add a thousand wins a second.
/// Every score counts, a win or an undo, answered or refused by the store.
final class TapLimiter: Sendable {
    /// Clients remembered before the idle ones (whose buckets are full again) are forgotten.
    static let rememberedClients = 10_000

    let perSecond: Int

    private struct Bucket {
        var taps: Double
        var at: ContinuousClock.Instant
    }

    private let buckets = Mutex<[String: Bucket]>([:])

    init(perSecond: Int) {
        self.perSecond = perSecond
    }

    /// Takes a tap from `client`'s bucket; nil when there was one, else the whole seconds until
    /// there is.
    func take(for client: String, now: ContinuousClock.Instant = .now) -> Int? {
        let rate = Double(perSecond)
        return buckets.withLock { buckets in
            if buckets.count >= Self.rememberedClients {
                buckets = buckets.filter { now - $0.value.at < .seconds(1) }
            }
            var bucket = buckets[client] ?? Bucket(taps: rate, at: now)
            let elapsed = now - bucket.at
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.taps = min(rate, bucket.taps + seconds * rate)
            bucket.at = now
            defer { buckets[client] = bucket }
            guard bucket.taps >= 1 else { return max(1, Int(((1 - bucket.taps) / rate).rounded(.up))) }
            bucket.taps -= 1
            return nil
        }
    }
}
