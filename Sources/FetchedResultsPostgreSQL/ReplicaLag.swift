/// How far a hot standby's replay is behind the WAL it has received, estimated on the reader's
/// own clock: each look notes the newest WAL position the standby has received, the first time
/// it sees it, and the lag is how long the oldest position not yet replayed has been waiting.
///
/// Why not `now() - pg_last_xact_replay_timestamp()`, the usual query: that is the age of the
/// last replayed commit, so on a quiet database it grows without any lag at all, and it mixes
/// the primary's clock with the standby's. The estimate here is never more than the real lag,
/// and short of it by at most the time between two looks.
struct ReplicaLag {
    /// A received WAL position (bytes) and when a look first saw it.
    private var waiting: [(position: Int64, seen: ContinuousClock.Instant)] = []
    /// Whether the last look read a standby.
    private(set) var readsStandby = false

    /// Notes what a look read: nil positions when the server is not in recovery.
    mutating func observe(received: Int64?, replayed: Int64?, at now: ContinuousClock.Instant) {
        guard let replayed else {
            self = ReplicaLag()
            return
        }
        readsStandby = true
        waiting.removeAll { $0.position <= replayed }
        if let received, received > replayed, received > (waiting.last?.position ?? replayed) {
            waiting.append((received, now))
        }
    }

    /// The time the oldest received, unreplayed WAL has waited; zero when replay has caught up;
    /// nil when the reader is not on a standby.
    func lag(at now: ContinuousClock.Instant) -> Duration? {
        guard readsStandby else { return nil }
        return waiting.first.map { now - $0.seen } ?? .zero
    }

    /// A new connection may reach another server.
    mutating func forget() { self = ReplicaLag() }
}
