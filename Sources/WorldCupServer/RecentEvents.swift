import Hummingbird

/// The last change events sent, by their ids (feed positions), so that a viewer that lost its
/// stream and comes back with `Last-Event-ID` gets exactly what it missed; one further behind
/// than this log reaches gets a snapshot instead (Electric's "must refetch").
///
/// Bounded by count and by bytes, whichever comes first: a burst of big change sets never holds
/// more than ``maximumBytes``.
struct RecentEvents {
    /// Change sets kept.
    static let maximumEvents = 4_096
    /// Bytes kept, at most.
    static let maximumBytes = 8 * 1024 * 1024

    /// Each event with the id of the state it starts from (the previous event's, or the first
    /// fetch's), so that a viewer whose last event has left the log may still be placed.
    private var entries: [(after: String, event: ByteBuffer)] = []
    /// Where the oldest entry is (entries before it are dropped lazily, in one go).
    private var start = 0
    private var bytes = 0
    /// Events dropped from the log since it began.
    private var dropped = 0

    /// Keeps an event that follows the state named `previousID`, dropping the oldest beyond the
    /// bounds.
    mutating func append(after previousID: String, event: ByteBuffer) {
        entries.append((previousID, event))
        bytes += event.readableBytes
        while entries.count - start > Self.maximumEvents || (bytes > Self.maximumBytes && entries.count - start > 1) {
            bytes -= entries[start].event.readableBytes
            start += 1
            dropped += 1
        }
        if start > Self.maximumEvents {
            entries.removeFirst(start)
            start = 0
        }
    }

    /// How many events were ever appended: a mark to ask ``holdsEvents(since:)`` about later.
    var mark: Int { dropped + entries.count - start }

    /// Whether the log still holds every event appended after `mark` was taken.
    func holdsEvents(since mark: Int) -> Bool {
        dropped <= mark
    }

    /// The events sent after the state named `id`, in order; nil when the log does not reach
    /// back to it (too old, from before this server started, or not an id at all).
    func events(after id: String) -> [ByteBuffer]? {
        guard let index = entries[start...].firstIndex(where: { $0.after == id }) else { return nil }
        return entries[index...].map(\.event)
    }
}
