/// One committed change set, as ``FetchedResultsController/changeSets(bufferingPolicy:)``
/// carries it: the per-change callbacks' content, in their order.
public struct ChangeSet: Sendable, Equatable {
    /// Section inserts, deletes and renames.
    public var sectionChanges: [SectionChange]
    /// Object inserts, deletes, moves and updates.
    public var objectChanges: [ObjectChange]
}

/// What a change sequence keeps for a consumer slower than the changes.
public enum ChangeBufferingPolicy: Sendable, Equatable {
    /// Every element.
    case unbounded
    /// The newest elements, at most this many.
    case bufferingNewest(Int)
    /// The oldest elements, at most this many; newer ones are dropped.
    case bufferingOldest(Int)
}

/// A controller's snapshots or change sets as an `AsyncSequence` (see
/// ``FetchedResultsController/snapshots(bufferingPolicy:)``). Not `Sendable`: iterate it where
/// the controller lives. Each iterator is a listener of its own, from its creation until it
/// ends or is released.
public struct ResultsChanges<Element, Record>: AsyncSequence {
    let controller: FetchedResultsController<Record>
    let kind: ChangeStream.Kind
    let policy: ChangeBufferingPolicy

    public func makeAsyncIterator() -> Iterator {
        Iterator(listener: StreamListener(controller: controller, stream: controller.core.openStream(kind, policy)))
    }

    /// Hands out what the controller delivered, and between deliveries waits for the store and
    /// looks.
    public struct Iterator: AsyncIteratorProtocol {
        let listener: StreamListener<Record>

        /// The next element, in the caller's isolation.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> Element? {
            let core = listener.controller.core, stream = listener.stream
            while true {
                if let element = take() { return element }
                if let failure = stream.failure {
                    listener.end()
                    throw failure
                }
                if Task.isCancelled || listener.hasEnded {
                    listener.end()
                    return nil
                }
                if core.needsFetchForSequence {
                    try core.performFetch()
                    if stream.kind == .snapshots, let snapshot = core.currentSnapshot() {
                        stream.add(snapshot: snapshot)
                    }
                    continue
                }
                await StoreWake.wait(descriptor: core.wakeDescriptor, until: core.nextLookDeadline)
                _ = try core.processPendingChanges()
            }
        }

        public mutating func next() async throws -> Element? {
            try await next(isolation: nil)
        }

        private func take() -> Element? {
            switch listener.stream.kind {
            case .snapshots: listener.stream.takeSnapshot() as? Element
            case .changeSets: listener.stream.takeChangeSet() as? Element
            }
        }
    }
}

/// An iterator's place among a controller's listeners, given up when the iteration ends:
/// at its end, at an error, or when the iterator is released (`break`, `return`, a throw out
/// of the loop), so that nothing is buffered for nobody.
final class StreamListener<Record> {
    let controller: FetchedResultsController<Record>
    let stream: ChangeStream
    private(set) var hasEnded = false

    init(controller: FetchedResultsController<Record>, stream: ChangeStream) {
        self.controller = controller
        self.stream = stream
    }

    func end() {
        guard !hasEnded else { return }
        hasEnded = true
        controller.core.close(stream)
    }

    deinit { end() }
}
