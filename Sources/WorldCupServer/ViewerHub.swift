import Hummingbird
import Synchronization

/// The browsers following the standings: each gets the event stream's bytes through a bounded
/// buffer of its own. An event is encoded once and the same bytes go to every viewer.
///
/// A viewer whose buffer is full (a phone that stopped reading) is cut off rather than held in
/// memory without bound, or allowed to hold others back: its stream ends and its connection is
/// closed (its write may be stuck on a full socket); its browser reconnects with its last id.
///
/// At most ``maximumViewers`` follow at once: each holds a connection, a buffer and a share of
/// every write, and past a bound the server would rather refuse one than slow them all.
final class ViewerHub: Sendable {
    /// Events a viewer may have waiting: a big store's whole snapshot, then this many more.
    static let bufferedEvents = 1_024

    let maximumViewers: Int
    private let metrics: ServeMetrics

    init(maximumViewers: Int, metrics: ServeMetrics) {
        self.maximumViewers = maximumViewers
        self.metrics = metrics
    }

    typealias Stream = AsyncStream<ByteBuffer>

    private struct Viewer {
        var continuation: Stream.Continuation
        /// Closes the viewer's connection.
        var cutOff: @Sendable () -> Void
    }

    private struct State {
        var viewers: [UInt64: Viewer] = [:]
        var nextID: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// A new viewer's stream, with room for `snapshotParts` parts before the buffer's bound;
    /// no event reaches it until ``admit(_:_:cutOff:)``.
    func makeStream(snapshotParts: Int = 0) -> (id: UInt64, stream: Stream, continuation: Stream.Continuation) {
        let (stream, continuation) = Stream.makeStream(
            bufferingPolicy: .bufferingOldest(Self.bufferedEvents + snapshotParts))
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.viewers.removeValue(forKey: id) }
        }
        return (id, stream, continuation)
    }

    /// Starts sending every later event to this viewer (after its snapshot, which the caller
    /// wrote first); a closing server ends it at once. `cutOff` closes its connection.
    func admit(_ id: UInt64, _ continuation: Stream.Continuation, cutOff: @escaping @Sendable () -> Void) {
        let admitted = state.withLock { state in
            guard !state.closed else { return false }
            state.viewers[id] = Viewer(continuation: continuation, cutOff: cutOff)
            return true
        }
        if !admitted { continuation.finish() }
    }

    /// Writes an event to every viewer; a viewer whose buffer is full is cut off. Returns how
    /// many viewers took it.
    @discardableResult
    func publish(_ buffer: ByteBuffer) -> Int {
        let viewers = state.withLock { $0.viewers }
        var taken = 0
        for (_, viewer) in viewers {
            if case .dropped = viewer.continuation.yield(buffer) {
                viewer.continuation.finish()
                viewer.cutOff()
                metrics.viewersCutOff.increment()
            } else {
                taken += 1
            }
        }
        return taken
    }

    /// How many viewers follow now.
    var count: Int { state.withLock { $0.viewers.count } }

    /// Whether another viewer may follow now.
    var hasRoom: Bool { count < maximumViewers }

    /// Ends every stream (the server is stopping), and any admitted later.
    func closeAll() {
        let viewers = state.withLock { state in
            state.closed = true
            return state.viewers
        }
        for (_, viewer) in viewers { viewer.continuation.finish() }
    }
}
