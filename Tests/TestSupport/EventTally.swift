import Foundation
import Synchronization

/// Reads an event stream on a thread of its own until it ends, counting the events and keeping
/// the last one: a viewer that keeps up while a test does something else.
public final class EventTally: Sendable {
    private let state = Mutex<(count: Int, last: EventStream.Event?)>((0, nil))

    /// Starts reading `stream`; nothing else may read it from then on.
    public init(reading stream: EventStream) {
        // The thread keeps the tally alive until the stream ends.
        Thread {
            while let event = try? stream.next() {
                self.state.withLock { $0 = ($0.count + 1, event) }
            }
        }.start()
    }

    /// The events read so far.
    public var count: Int { state.withLock { $0.count } }

    /// The last event read, if any.
    public var last: EventStream.Event? { state.withLock { $0.last } }
}
