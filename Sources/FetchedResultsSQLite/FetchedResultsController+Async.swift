import GRDB
import Synchronization

extension FetchedResultsController {
    /// The results as an asynchronous sequence of snapshots, for Swift concurrency: the current
    /// results first, then one snapshot per committed transaction that changes them (GRDB's
    /// `ValueObservation.values(in:)`, for a controller). An error the controller meets ends
    /// the sequence by throwing it.
    ///
    /// ```swift
    /// for try await snapshot in controller.snapshots() {
    ///     render(snapshot.sections)
    /// }
    /// ```
    ///
    /// Asking for the sequence turns tracking on, as a delegate does (after ``performFetch()``
    /// the first snapshot is the fetched results). Snapshots are produced where the
    /// controller's callbacks run (see Threading) and are `Sendable`, so any task may iterate.
    /// When the iterating task is cancelled or stops iterating, the sequence ends at once and
    /// the controller stops following commits for it; without a delegate and with no other
    /// sequence left, commits are then ignored, and the observer goes away when the controller
    /// is released or fetches again.
    public func snapshots() -> AsyncThrowingStream<ResultsSnapshot, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ResultsSnapshot, any Error>.makeStream()
        let changeStream = ChangeStream(continuation)
        continuation.onTermination = { _ in changeStream.terminate() }
        streams.append(changeStream)
        updateTracking()
        if let state {
            continuation.yield(state.snapshot(reloaded: []))
        }
        return stream
    }

    /// Hands a snapshot to every sequence still iterated, forgetting the others.
    func yieldToStreams(_ snapshot: ResultsSnapshot) {
        streams.removeAll { $0.isTerminated }
        for stream in streams { stream.continuation.yield(snapshot) }
    }

    /// Ends every sequence with an error.
    func failStreams(_ error: any Error) {
        for stream in streams { stream.continuation.finish(throwing: error) }
        streams.removeAll()
    }
}

/// One consumer of ``FetchedResultsController/snapshots()``. Its termination may be reported
/// from any thread, hence the mutex; the controller reads it on its own.
final class ChangeStream: Sendable {
    let continuation: AsyncThrowingStream<ResultsSnapshot, any Error>.Continuation
    private let terminated = Mutex(false)

    init(_ continuation: AsyncThrowingStream<ResultsSnapshot, any Error>.Continuation) {
        self.continuation = continuation
    }

    func terminate() { terminated.withLock { $0 = true } }

    var isTerminated: Bool { terminated.withLock { $0 } }
}
