import Dispatch

/// Waits, without blocking a thread, until a store may have changes: its descriptor turned
/// readable, its deadline passed, or the waiting task was cancelled.
enum StoreWake {
    /// How long a wait lasts when the store gives neither a descriptor nor a deadline.
    static let longestWait = Duration.seconds(1)

    static func wait(descriptor: Int32?, until deadline: ContinuousClock.Instant?) async {
        let waiter = Waiter()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiter.start(
                    continuation, descriptor: descriptor,
                    after: deadline.map { max(.zero, $0 - .now) } ?? (descriptor == nil ? longestWait : nil))
            }
        } onCancel: {
            waiter.finish()
        }
    }

    /// One wait: a read source on the descriptor and a timer, whichever fires first resumes the
    /// waiting task, once. Its state is touched on its serial queue only, hence unchecked.
    private final class Waiter: @unchecked Sendable {
        private let queue = DispatchQueue(label: "FetchedResults.StoreWake")
        private var continuation: CheckedContinuation<Void, Never>?
        private var source: DispatchSourceRead?
        private var done = false

        func start(_ continuation: CheckedContinuation<Void, Never>, descriptor: Int32?, after delay: Duration?) {
            queue.async { [self] in
                if done { return continuation.resume() }
                self.continuation = continuation
                if let descriptor {
                    let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
                    source.setEventHandler { [self] in finishOnQueue() }
                    source.resume()
                    self.source = source
                }
                if let delay {
                    let nanoseconds =
                        delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
                    queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) { [self] in
                        finishOnQueue()
                    }
                }
            }
        }

        func finish() {
            queue.async { [self] in finishOnQueue() }
        }

        private func finishOnQueue() {
            done = true
            source?.cancel()
            source = nil
            continuation?.resume()
            continuation = nil
        }
    }
}
