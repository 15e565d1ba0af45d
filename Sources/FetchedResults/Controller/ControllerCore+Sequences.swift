extension FetchedResultsController {
    // MARK: - Change sequences

    /// The results as an asynchronous sequence of snapshots, for Swift concurrency: the current
    /// results first, then a snapshot after each look that changed them (GRDB's
    /// `ValueObservation.values(in:)`, for a controller).
    ///
    /// ```swift
    /// for try await snapshot in controller.snapshots() {
    ///     render(snapshot.sections)
    /// }
    /// ```
    ///
    /// The sequence waits for the store by itself (its ``wakeDescriptor`` and
    /// ``nextLookDeadline``) and looks in the iterating task's isolation, so the controller
    /// never leaves it. Its first step fetches, with tracking, when the controller does not
    /// track yet. By default only the newest snapshot waits for a slow consumer: a snapshot is
    /// the whole state, so the ones before it are of no use. An error the controller meets ends
    /// the sequence by throwing it. However the iteration ends — `break`, `return`, a throw, the
    /// task cancelled, the iterator released — the sequence stops listening, and tracking stops
    /// when nobody else listens.
    public func snapshots(
        bufferingPolicy: ChangeBufferingPolicy = .bufferingNewest(1)
    ) -> ResultsChanges<ResultsSnapshot, Record, Store> {
        ResultsChanges(controller: self, kind: .snapshots, policy: bufferingPolicy)
    }

    /// The changes as an asynchronous sequence of change sets, one per look that changed the
    /// results, for code that applies them one by one (a table view's batch updates). Every
    /// change set is kept for a slow consumer by default: each one is relative to the one
    /// before it. Waits and ends as ``snapshots(bufferingPolicy:)`` does.
    public func changeSets(
        bufferingPolicy: ChangeBufferingPolicy = .unbounded
    ) -> ResultsChanges<ChangeSet, Record, Store> {
        ResultsChanges(controller: self, kind: .changeSets, policy: bufferingPolicy)
    }

    func openStream(_ kind: ChangeStream.Kind, _ policy: ChangeBufferingPolicy) -> ChangeStream {
        let stream = ChangeStream(kind: kind, policy: policy)
        streams.append(stream)
        // Untracked results are fetched again, with tracking, by the first step: its snapshot
        // is the first.
        if kind == .snapshots, isTracking, let state { stream.add(snapshot: state.snapshot(reloaded: [])) }
        return stream
    }

    /// Hands a change set, and the snapshot after it when one was made, to every sequence.
    func yieldToStreams(_ changeSet: ChangeSet, _ snapshot: ResultsSnapshot?) {
        for stream in streams {
            switch stream.kind {
            case .changeSets: stream.add(changeSet: changeSet)
            case .snapshots: if let snapshot { stream.add(snapshot: snapshot) }
            }
        }
    }

    /// Ends every sequence with an error.
    func failStreams(_ error: any Error) {
        for stream in streams { stream.failure = error }
        streams.removeAll()
    }

    /// A sequence ended: forget it, and stop tracking when nobody else listens.
    func close(_ stream: ChangeStream) {
        streams.removeAll { $0 === stream }
        if !hasListeners { stopTracking() }
    }
}

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

/// The elements a change sequence has not handed out yet; lives with its controller.
final class ChangeStream {
    enum Kind { case snapshots, changeSets }

    let kind: Kind
    let policy: ChangeBufferingPolicy
    private(set) var snapshots: [ResultsSnapshot] = []
    private(set) var changeSets: [ChangeSet] = []
    /// The error that ended the sequence.
    var failure: (any Error)?

    init(kind: Kind, policy: ChangeBufferingPolicy) {
        self.kind = kind
        self.policy = policy
    }

    var wantsSnapshots: Bool { kind == .snapshots }

    func add(snapshot: ResultsSnapshot) { Self.add(snapshot, to: &snapshots, policy) }

    func add(changeSet: ChangeSet) { Self.add(changeSet, to: &changeSets, policy) }

    func takeSnapshot() -> ResultsSnapshot? { snapshots.isEmpty ? nil : snapshots.removeFirst() }

    func takeChangeSet() -> ChangeSet? { changeSets.isEmpty ? nil : changeSets.removeFirst() }

    private static func add<Element>(_ element: Element, to buffer: inout [Element], _ policy: ChangeBufferingPolicy) {
        switch policy {
        case .unbounded:
            buffer.append(element)
        case let .bufferingNewest(limit):
            buffer.append(element)
            if buffer.count > max(1, limit) { buffer.removeFirst(buffer.count - max(1, limit)) }
        case let .bufferingOldest(limit):
            if buffer.count < max(1, limit) { buffer.append(element) }
        }
    }
}

/// A controller's snapshots or change sets as an `AsyncSequence` (see
/// ``FetchedResultsController/snapshots(bufferingPolicy:)``). Not `Sendable`: iterate it where
/// the controller lives. Each iterator is a listener of its own, from its creation until it
/// ends or is released.
public struct ResultsChanges<Element, Record, Store: ResultsStore>: AsyncSequence {
    let controller: FetchedResultsController<Record, Store>
    let kind: ChangeStream.Kind
    let policy: ChangeBufferingPolicy

    public func makeAsyncIterator() -> Iterator {
        Iterator(listener: StreamListener(controller: controller, stream: controller.openStream(kind, policy)))
    }

    /// Hands out what the controller delivered, and between deliveries waits for the store and
    /// looks.
    public struct Iterator: AsyncIteratorProtocol {
        let listener: StreamListener<Record, Store>

        /// The next element, in the caller's isolation.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> Element? {
            let controller = listener.controller, stream = listener.stream
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
                if !controller.isTracking || controller.state == nil {
                    try controller.performFetch()
                    if stream.kind == .snapshots, let state = controller.state {
                        stream.add(snapshot: state.snapshot(reloaded: []))
                    }
                    continue
                }
                await StoreWake.wait(descriptor: controller.wakeDescriptor, until: controller.nextLookDeadline)
                try controller.processPendingChanges()
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
final class StreamListener<Record, Store: ResultsStore> {
    let controller: FetchedResultsController<Record, Store>
    let stream: ChangeStream
    private(set) var hasEnded = false

    init(controller: FetchedResultsController<Record, Store>, stream: ChangeStream) {
        self.controller = controller
        self.stream = stream
    }

    func end() {
        guard !hasEnded else { return }
        hasEnded = true
        controller.close(stream)
    }

    deinit { end() }
}
