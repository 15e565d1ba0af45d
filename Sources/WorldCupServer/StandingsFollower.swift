import FetchedResults
import Foundation
import Hummingbird
import ServiceLifecycle
import WorldCupModel

/// The one results controller `serve` follows the store with, owned by this actor (the
/// controller is not `Sendable`), and what the rest of the server asks of it.
///
/// ``run()`` waits for the store with the controller's own wait, suspending, on no thread of
/// its own; each change set the controller reports is encoded once
/// (``StandingsEvents/change(version:id:sections:objects:sectionRows:team:)``) and published to
/// every viewer before anything else runs on the actor. A big store is loaded behind the first
/// rows, as the terminal does, and each load step reaches the viewers as a change set. A new
/// viewer's snapshot is made on the actor too, between change sets, so it misses none and
/// repeats none.
actor StandingsFollower: Service {
    /// The rows read before the server starts answering; the rest load behind.
    static let firstRows = 1_000
    /// Rows per load step behind the first rows: a change committed meanwhile waits for the
    /// step, and each viewer's page applies it whole.
    static let loadStep = 1_000

    /// What the page shows before its script runs: the first rows of each section, in order.
    struct FirstRows: Sendable {
        var version: UInt64
        var teamCount: Int
        var sections: [(name: String, count: Int, teams: [Team])]
    }

    let hub: ViewerHub
    private let metrics: ServeMetrics
    private let controller: FetchedResultsController<Team>
    private let recorder: ChangeRecorder
    private var version: UInt64 = 0
    /// Each event's id is the change feed's position after it, the same text in every `serve`
    /// following the store; load steps behind the first rows leave the position as it was, so
    /// they are told apart by a step count after it.
    private var ids: EventIDs
    private var log = RecentEvents()
    /// The last snapshot built, with the id it is exact at: a viewer that connects later gets
    /// it and the change sets since, while the log reaches back to it, so a room of phones
    /// joining at once costs one read of the standings, not one each. Its log mark tells, in
    /// one comparison per change set, when the log no longer reaches back to it.
    private var lastSnapshot: (id: String, parts: [ByteBuffer], logMark: Int)?

    /// Makes the controller and reads the first rows (or throws what stopped it).
    init(
        hub: ViewerHub, metrics: ServeMetrics, makeController: () throws -> FetchedResultsController<Team>
    ) throws {
        self.hub = hub
        self.metrics = metrics
        recorder = ChangeRecorder(metrics: metrics)
        let controller = try makeController()
        controller.delegate = recorder
        try controller.performFetch(firstRows: Self.firstRows)
        self.controller = controller
        ids = EventIDs(position: controller.feedPosition)
    }

    /// Follows the store until the server shuts down: loads the rest of the rows behind the
    /// first ones, then waits for commits; publishes every change set.
    func run() async {
        // Cancelled, its wait ends at once: the server stops without waiting for a commit.
        await cancelWhenGracefulShutdown { await self.follow() }
        controller.stopTracking()
    }

    private func follow() async {
        while !Task.isCancelled {
            if controller.hasRowsToLoad {
                recorder.attempt { try controller.loadMoreRows(Self.loadStep) }
                publish()
                await Task.yield()
            } else {
                await recorder.attempt { try await controller.waitForChanges() }
                publish()
            }
        }
    }

    /// Why the server is not ready to serve the standings as they are (nil: it is): the
    /// follower's connection to the store is away, or the rows behind the first ones are still
    /// loading.
    func notReadyReason() -> String? {
        if case let .reconnecting(attempts, lastError) = controller.connectionState {
            return "The store cannot be reached (\(attempts) attempts to reconnect so far; the last: \(lastError)); "
                + "the standings may be behind until it is back."
        }
        if controller.hasRowsToLoad {
            return "The standings are still loading: \(Thousands.grouped(controller.heldRowCount)) teams so far."
        }
        return nil
    }

    /// The first `count` rows for the page.
    func firstRows(_ count: Int) -> FirstRows {
        Self.firstRows(count, version: version, in: controller)
    }

    /// A viewer's stream: what it missed since `lastEventID` (the id of the last event it got,
    /// when it comes back), or else a snapshot; then every change set after it. `cutOff` ends
    /// the viewer's connection when its buffer overflows; `end` ends the stream (its connection
    /// closed). Nil when the hub has as many viewers as it takes.
    func subscribe(
        lastEventID: String?, cutOff: @escaping @Sendable () -> Void
    ) -> (stream: ViewerHub.Stream, end: @Sendable () -> Void)? {
        guard hub.hasRoom else { return nil }
        let first: [ByteBuffer]
        if let missed = lastEventID.flatMap(events(since:)) {
            first = missed
        } else if let last = lastSnapshot, let since = events(since: last.id) {
            first = last.parts + since
        } else {
            first = Self.snapshot(version: version, id: ids.current, of: controller).map { ByteBuffer(bytes: $0) }
            lastSnapshot = (ids.current, first, log.mark)
            metrics.snapshotsBuilt.increment()
        }
        let viewer = hub.makeStream(snapshotParts: first.count)
        for event in first { viewer.continuation.yield(event) }
        metrics.eventsSent.increment(by: Int64(first.count))
        hub.admit(viewer.id, viewer.continuation, cutOff: cutOff)
        return (viewer.stream, { [continuation = viewer.continuation] in continuation.finish() })
    }

    private func events(since id: String) -> [ByteBuffer]? { id == ids.current ? [] : log.events(after: id) }

    /// Encodes each change set the controller told since the last call, from its state after
    /// it (one change set per step), and hands it to every viewer.
    private func publish() {
        for (sections, objects, reported) in recorder.takeChangeSets() {
            version += 1
            let previousID = ids.current
            let id = ids.next(position: controller.feedPosition)
            let carried = Self.teams(at: objects.compactMap(\.newIndexPath), in: controller)
            let event = ByteBuffer(
                bytes: StandingsEvents.change(
                    version: version, id: id, sections: sections, objects: objects,
                    sectionRows: { Self.rows(ofSection: $0, in: controller) },
                    team: { carried[controller.rowID(at: $0)] }))
            log.append(after: previousID, event: event)
            metrics.eventsSent.increment(by: Int64(hub.publish(event)))
            metrics.changeSets.increment()
            metrics.changeSetDelivery.record(ContinuousClock.now - reported)
        }
        if let mark = lastSnapshot?.logMark, !log.holdsEvents(since: mark) { lastSnapshot = nil }
    }

    private static func rows(
        ofSection section: Int, _ rows: Range<Int>? = nil, in controller: FetchedResultsController<Team>
    ) -> [Team] {
        let rows = rows ?? 0..<controller.numberOfObjects(inSection: section)
        return (try? controller.objectsIfPresent(inSection: section, rows: rows)) ?? []
    }

    /// Rows further apart than this in a section are read apart.
    private static let nearbyRows = 64

    /// The teams at these index paths (the rows a change set carries), by row id, read in runs
    /// of nearby rows: a load step's thousands in a few store reads rather than one per batch.
    private static func teams(
        at paths: [IndexPath], in controller: FetchedResultsController<Team>
    ) -> [Int64: Team] {
        var teams: [Int64: Team] = [:]
        var run: (section: Int, rows: Range<Int>)?
        func readRun() {
            guard let run else { return }
            for team in rows(ofSection: run.section, run.rows, in: controller) {
                if let id = team.id { teams[id] = team }
            }
        }
        for path in paths.sorted() {
            if let current = run, current.section == path.section, path.row - current.rows.upperBound <= nearbyRows {
                run = (current.section, current.rows.lowerBound..<max(current.rows.upperBound, path.row + 1))
            } else {
                readRun()
                run = (path.section, path.row..<path.row + 1)
            }
        }
        readRun()
        return teams
    }

    private static func firstRows(
        _ count: Int, version: UInt64, in controller: FetchedResultsController<Team>
    ) -> FirstRows {
        var left = count
        var result = FirstRows(version: version, teamCount: controller.heldRowCount, sections: [])
        for section in 0..<controller.numberOfSections {
            let total = controller.numberOfObjects(inSection: section)
            let shown = min(total, left)
            let teams = rows(ofSection: section, 0..<shown, in: controller)
            result.sections.append((controller.sectionName(at: section), total, teams))
            left -= shown
        }
        return result
    }

    /// The standings whole, as snapshot parts of ``StandingsEvents/snapshotPartRows`` rows.
    private static func snapshot(
        version: UInt64, id: String, of controller: FetchedResultsController<Team>
    ) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var pending: [StandingsEvents.SnapshotSection] = []
        var pendingRows = 0
        func flush(last: Bool) {
            parts.append(
                StandingsEvents.snapshotPart(
                    version: version, id: id, sections: pending, first: parts.isEmpty, last: last))
            pending = []
            pendingRows = 0
        }
        for section in 0..<controller.numberOfSections {
            let total = controller.numberOfObjects(inSection: section)
            let name = controller.sectionName(at: section)
            var row = 0
            repeat {
                let take = min(total - row, StandingsEvents.snapshotPartRows - pendingRows)
                let teams = rows(ofSection: section, row..<row + take, in: controller)
                pending.append(.init(index: section, name: name, count: total, rows: teams))
                pendingRows += take
                row += take
                if pendingRows == StandingsEvents.snapshotPartRows { flush(last: false) }
            } while row < total
        }
        flush(last: true)
        return parts
    }
}

/// The ids of the events, in order: the change feed's position after each, with a step count
/// when several events leave it where it was (load steps), so that no two events share an id.
private struct EventIDs {
    private var position: String
    private var steps = 0
    /// The id of the last event (or of the state the first fetch read).
    private(set) var current: String

    init(position: String?) {
        self.position = position ?? "0"
        current = self.position
    }

    mutating func next(position now: String?) -> String {
        let now = now ?? position
        if now == position {
            steps += 1
            current = "\(now)/\(steps)"
        } else {
            position = now
            steps = 0
            current = now
        }
        return current
    }
}

/// The follower's delegate: gathers one change set's callbacks and hands them on whole, with
/// when the controller began reporting it; keeps the store's connection state in the metrics.
private final class ChangeRecorder: FetchedResultsControllerDelegate {
    typealias ChangeSet = (sections: [SectionChange], objects: [ObjectChange], reported: ContinuousClock.Instant)

    private let metrics: ServeMetrics
    private var changeSets: [ChangeSet] = []
    private var sections: [SectionChange] = []
    private var objects: [ObjectChange] = []
    private var reported = ContinuousClock.now
    private var lastFailure: String?

    init(metrics: ServeMetrics) {
        self.metrics = metrics
    }

    func controllerWillChangeContent(_ controller: FetchedResultsController<Team>) {
        sections = []
        objects = []
        reported = .now
    }

    func controller(_ controller: FetchedResultsController<Team>, didChange section: SectionChange) {
        sections.append(section)
    }

    func controller(_ controller: FetchedResultsController<Team>, didChange object: ObjectChange) {
        objects.append(object)
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController<Team>) {
        changeSets.append((sections, objects, reported))
    }

    func controller(_ controller: FetchedResultsController<Team>, didChangeConnectionState state: ConnectionState) {
        metrics.storeConnected.set(state == .connected ? 1.0 : 0.0)
    }

    /// The change sets told since the last call, in order.
    func takeChangeSets() -> [ChangeSet] {
        defer { changeSets = [] }
        return changeSets
    }

    func controller(_ controller: FetchedResultsController<Team>, didFailWith error: any Error) {
        report("\(error)")
    }

    /// Runs a step of the controller; a failure is said once on stderr (the controller keeps
    /// its last good results and catches up at its next successful look).
    func attempt(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            report("\(error)")
        }
    }

    /// ``attempt(_:)`` for a step that waits.
    func attempt(isolation actor: isolated (any Actor)? = #isolation, _ body: () async throws -> Void) async {
        do {
            try await body()
        } catch {
            report("\(error)")
        }
    }

    private func report(_ message: String) {
        guard message != lastFailure else { return }
        lastFailure = message
        try? FileHandle.standardError.write(contentsOf: Data("worldcup serve: following the store: \(message)\n".utf8))
    }
}
