import FetchedResults
import Foundation
import GRDB

extension SQLiteStore {
    // MARK: - Reading ahead

    /// Starts the next step's read of a progressive fetch on another of the pool's connections,
    /// so that SQLite reads it while the program appends and delivers the step before. The read
    /// only steps SQLite and copies the rows' ids and sort values (`CopiedSortRows`); the step
    /// that takes them makes their keys, while the read after them runs: the two threads share
    /// a load's work. The read counts only if its snapshot is at `position` (the change
    /// history's newest sequence is the same): then its rows are exactly those after `boundary`
    /// in the results as they stand.
    ///
    /// Only for a `DatabasePool`, whose readers run beside one another, with a batch size (ids and
    /// sort values, no full rows), and on a table with a ``ChangeHistory``, whose sequence the
    /// read checks. Returns whether it was started.
    public func readAhead(
        limit: Int, after boundary: LoadBoundary<[DatabaseValue]>, unchangedSince position: SQLitePosition
    ) throws -> Bool {
        guard let pool = database as? DatabasePool, orderedQuery.batching, let sequence = position.sequence else {
            return false
        }
        let query = orderedQuery
        let pending = PendingReadAhead(limit: limit, boundary: boundary, position: position)
        readingAhead = pending
        pool.asyncRead { snapshot in
            pending.finish(
                Result {
                    let db = try snapshot.get()
                    guard try ChangeHistory.latestSequence(db) == sequence else { return nil }
                    return try query.copyRows(limit: limit, after: boundary, in: db)
                })
        }
        return true
    }

    /// Waits for the read started by ``readAhead(limit:after:unchangedSince:)`` if it is still
    /// running, hands its rows to `body` and returns true; false when there is nothing to take
    /// (none started, a commit before its snapshot, or an error, which the step's own read then
    /// meets and reports). When the rows reach their limit, the `nextLimit` rows after them are
    /// read ahead before `body` runs.
    public func takeReadAhead(
        readingAhead nextLimit: Int, in snapshot: Database, _ body: (OrderedRead<Row, [DatabaseValue]>) throws -> Void
    ) throws -> Bool {
        guard let pending = readingAhead else { return false }
        readingAhead = nil
        guard case let .success(copied?) = pending.wait(), !copied.rowIDs.isEmpty else { return false }
        if let last = orderedQuery.boundary(after: copied, limit: pending.limit) {
            _ = try readAhead(limit: nextLimit, after: last, unchangedSince: pending.position)
        }
        // The keys are made here, while the next read steps SQLite on its own thread.
        try body(orderedQuery.read(copied: copied, limit: pending.limit, after: pending.boundary))
        stepsReadAhead += 1
        return true
    }
}

/// A read ahead running on one of the pool's reader threads, and the rows it copied.
///
/// `@unchecked Sendable`: the reader thread writes the outcome once, before it signals; the
/// store's thread reads it only after waiting for that signal.
final class PendingReadAhead: @unchecked Sendable {
    /// How many rows the read asked for.
    let limit: Int
    /// The row the read continues after.
    let boundary: LoadBoundary<[DatabaseValue]>
    /// The position whose results the read continues.
    let position: SQLitePosition
    private let finished = DispatchSemaphore(value: 0)
    /// The rows, or nil when the snapshot was not at `position`.
    private var outcome: Result<CopiedSortRows?, any Error> = .success(nil)

    init(limit: Int, boundary: LoadBoundary<[DatabaseValue]>, position: SQLitePosition) {
        self.limit = limit
        self.boundary = boundary
        self.position = position
    }

    /// Called once, on the reader's thread, when the read is over.
    func finish(_ outcome: Result<CopiedSortRows?, any Error>) {
        self.outcome = outcome
        finished.signal()
    }

    /// The outcome, once the read is over; called at most once.
    func wait() -> Result<CopiedSortRows?, any Error> {
        finished.wait()
        return outcome
    }
}
