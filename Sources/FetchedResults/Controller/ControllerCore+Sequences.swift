extension ControllerCore {
    // MARK: - Change sequences

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
