import FetchedResults
import Foundation
import GRDB

extension SQLiteStore {
    // MARK: - Reading ahead

    /// Starts the next step's read of a progressive fetch on another of the pool's connections,
    /// so that SQLite reads it while the program appends and delivers the step before: on a
    /// machine with two cores a load then costs about its reads alone, as a plain fetch does.
    /// The read counts only if its snapshot is at `position` (the change history's newest
    /// sequence is the same): then its rows are exactly those after `boundary` in the results as
    /// they stand.
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
        let pending = PendingReadAhead(limit: limit, position: position)
        readingAhead = pending
        pool.asyncRead { snapshot in
            pending.finish(
                Result {
                    let db = try snapshot.get()
                    guard try ChangeHistory.latestSequence(db) == sequence else { return nil }
                    return try query.read(limit: limit, after: boundary, skipping: { _ in false }, in: db)
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
        guard case let .success(read?) = pending.wait(), read.count > 0 else { return false }
        if read.count == pending.limit, let last = read.last {
            _ = try readAhead(limit: nextLimit, after: last, unchangedSince: pending.position)
        }
        try body(read)
        stepsReadAhead += 1
        return true
    }
}

/// A read ahead running on one of the pool's reader threads, and what it found.
///
/// `@unchecked Sendable`: the reader thread writes the outcome once, before it signals; the
/// store's thread reads it only after waiting for that signal.
final class PendingReadAhead: @unchecked Sendable {
    /// How many rows the read asked for.
    let limit: Int
    /// The position whose results the read continues.
    let position: SQLitePosition
    private let finished = DispatchSemaphore(value: 0)
    /// The rows, or nil when the snapshot was not at `position`.
    private var outcome: Result<OrderedRead<Row, [DatabaseValue]>?, any Error> = .success(nil)

    init(limit: Int, position: SQLitePosition) {
        self.limit = limit
        self.position = position
    }

    /// Called once, on the reader's thread, when the read is over.
    func finish(_ outcome: Result<OrderedRead<Row, [DatabaseValue]>?, any Error>) {
        self.outcome = outcome
        finished.signal()
    }

    /// The outcome, once the read is over; called at most once.
    func wait() -> Result<OrderedRead<Row, [DatabaseValue]>?, any Error> {
        finished.wait()
        return outcome
    }
}
