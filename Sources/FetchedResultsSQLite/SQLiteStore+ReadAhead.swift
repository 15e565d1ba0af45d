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
    /// read checks. At most ``readAheadRowLimit`` rows are read. Returns whether it was started.
    public func readAhead(
        limit: Int, after boundary: LoadBoundary<[DatabaseValue]>, unchangedSince position: SQLitePosition
    ) throws -> Bool {
        guard let pool = database as? DatabasePool, orderedQuery.batching, let sequence = position.sequence else {
            return false
        }
        let query = orderedQuery, limit = min(limit, Self.readAheadRowLimit)
        let rows = spareCopiedRows.take() ?? CopiedSortRows(columns: query.descriptors.count)
        let pending = PendingReadAhead(limit: limit, boundary: boundary, position: position, rows: consume rows)
        readingAhead = pending
        pool.asyncRead { snapshot in
            pending.fill { rows in
                let db = try snapshot.get()
                guard try ChangeHistory.latestSequence(db) == sequence else { return false }
                try Self.withSmallPageCache(db) {
                    try query.copyRows(limit: limit, after: boundary, in: db, into: &rows)
                }
                return true
            }
        }
        return true
    }

    /// The most rows one read ahead reads. Its rows are held twice for a moment (copied, then
    /// keyed) and a step's change set grows with its rows: once read ahead, a million-team
    /// scoreboard's steps, sized by time, grew past 25,000 rows and its memory peaked 1-3 MB
    /// higher than with reads of at most 12,000 rows, for a load about a tenth faster.
    public static let readAheadRowLimit = 12_000

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
        let (copied, counts) = pending.wait()
        // Kept for the read after the next one, which then allocates nothing; dropped once the
        // load reads no more ahead.
        defer { spareCopiedRows = readingAhead == nil ? nil : copied }
        guard counts, copied.count > 0 else { return false }
        if let last = orderedQuery.boundary(after: copied, limit: pending.limit) {
            _ = try readAhead(limit: nextLimit, after: last, unchangedSince: pending.position)
        }
        // The keys are made here, while the next read steps SQLite on its own thread.
        try body(orderedQuery.read(copied: copied, limit: pending.limit, after: pending.boundary))
        stepsReadAhead += 1
        return true
    }
}

extension SQLiteStore {
    /// Runs `body` with the connection's page cache cut to a few pages, then gives it back its
    /// size: a read ahead scans pages it will not read again, and each reader's cache filled to
    /// SQLite's default 2 MB counted in a million-team scoreboard's memory.
    fileprivate static func withSmallPageCache<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        let size = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = -64")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(size)") }
        return try body()
    }
}

/// A read ahead running on one of the pool's reader threads, and the rows it copies.
///
/// `@unchecked Sendable`: the reader thread fills the rows and the outcome once, before it
/// signals; the store's thread reads them only after waiting for that signal.
final class PendingReadAhead: @unchecked Sendable {
    /// How many rows the read asks for.
    let limit: Int
    /// The row the read continues after.
    let boundary: LoadBoundary<[DatabaseValue]>
    /// The position whose results the read continues.
    let position: SQLitePosition
    private let finished = DispatchSemaphore(value: 0)
    /// The rows, filled in place: held here alone, so that filling them copies nothing.
    private var rows: CopiedSortRows?
    /// Whether the rows count: false when the snapshot was not at `position` or the read failed.
    private var counts = false

    init(limit: Int, boundary: LoadBoundary<[DatabaseValue]>, position: SQLitePosition, rows: consuming CopiedSortRows)
    {
        self.limit = limit
        self.boundary = boundary
        self.position = position
        self.rows = rows
    }

    /// Called once, on the reader's thread: fills the rows with `body`, which returns whether
    /// they count, and signals.
    func fill(_ body: (inout CopiedSortRows) throws -> Bool) {
        defer { finished.signal() }
        guard var filled = rows.take() else { return }
        counts = (try? body(&filled)) ?? false
        rows = consume filled
    }

    /// The rows and whether they count, once the read is over; called at most once.
    func wait() -> (rows: CopiedSortRows, counts: Bool) {
        finished.wait()
        return (rows.take() ?? CopiedSortRows(columns: boundary.values.count), counts)
    }
}
