import FetchedResults
import Foundation
import GRDB

extension SQLiteStore {
    // MARK: - Reading ahead

    /// Starts the next step's read of a progressive fetch on another of the pool's connections,
    /// so that SQLite reads it while the program appends and delivers the step before. The read
    /// only steps SQLite and copies the rows' ids and sort values (`CopiedSortRows`); the step
    /// that takes them makes their keys, while the read after them runs: the two threads share
    /// a load's work.
    ///
    /// The rows count only if the read's snapshot is at `position`: the change history's newest
    /// sequence is the same, so no commit the history records came between. A commit it does not
    /// record (this connection's writes to a table without the history's triggers, a schema
    /// change) is one the taking step's look sees, since that look's snapshot is opened once this
    /// read is over (``waitForReadAhead()``); the rows are then not taken.
    ///
    /// Only for a `DatabasePool`, whose readers run beside one another, with a batch size (ids and
    /// sort values, no full rows), and on a database with a ``ChangeHistory``. At most
    /// ``readAheadRowLimit`` rows are read. Returns whether the read was started.
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
    /// keyed) and a step's change set grows with its rows: steps sized by time grow without
    /// bound once their rows come read ahead, and so would the memory a big load peaks at,
    /// for little more speed. The bound keeps both small.
    public static let readAheadRowLimit = 12_000

    /// Waits until the read started by ``readAhead(limit:after:unchangedSince:)``, if any, is
    /// over. The step that may take its rows calls this before it opens its own snapshot,
    /// holding none of the pool's readers: the read needs one too.
    public func waitForReadAhead() {
        readingAhead?.waitUntilOver()
    }

    /// Forgets the read started ahead; its copy is kept for the next read once it is over.
    public func discardReadAhead() {
        guard let pending = readingAhead else { return }
        readingAhead = nil
        if pending.isOver, spareCopiedRows == nil { spareCopiedRows = pending.take().rows }
    }

    /// Hands the rows of the read started by ``readAhead(limit:after:unchangedSince:)`` to
    /// `body` and returns true; false when there is nothing to take (none started, a commit the
    /// history records before its snapshot, no rows, or an error, which the step's own read then
    /// meets and reports). When the rows reach their limit, the `nextLimit` rows after them are
    /// read ahead before `body` runs.
    public func takeReadAhead(
        readingAhead nextLimit: Int, in snapshot: Database, _ body: (OrderedRead<Row, [DatabaseValue]>) throws -> Void
    ) throws -> Bool {
        guard let pending = readingAhead else { return false }
        readingAhead = nil
        let (copied, isCurrent) = pending.take()
        // Kept for the read after the next one, which then allocates nothing; dropped once the
        // load reads no more ahead.
        defer { spareCopiedRows = readingAhead == nil ? nil : copied }
        guard isCurrent, copied.count > 0 else { return false }
        if let last = orderedQuery.boundary(after: copied, limit: pending.limit) {
            _ = try readAhead(limit: nextLimit, after: last, unchangedSince: pending.position)
        }
        // The keys are made here, while the next read steps SQLite on its own thread.
        try body(orderedQuery.read(copied: copied, limit: pending.limit, after: pending.boundary))
        stepsReadAhead += 1
        return true
    }

    /// Drops the read started ahead and the copy kept for the next one.
    func forgetReadAhead() {
        readingAhead = nil
        spareCopiedRows = nil
    }

    /// Runs `body` with the connection's page cache cut to a few pages, then gives it back its
    /// size (if that fails, the connection keeps the small cache, which costs speed only): a read
    /// ahead scans pages it will not read again, and each reader's cache filled to its size
    /// counted in a million-team scoreboard's memory.
    fileprivate static func withSmallPageCache<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        let size = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = -64")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(size)") }
        return try body()
    }
}

/// A read ahead running on one of the pool's reader threads, and the rows it copies.
///
/// `@unchecked Sendable`: the reader thread fills the rows and says whether they are current
/// once, before it signals; the store's thread reads them only after waiting for that signal.
final class PendingReadAhead: @unchecked Sendable {
    /// How many rows the read asks for.
    let limit: Int
    /// The row the read continues after.
    let boundary: LoadBoundary<[DatabaseValue]>
    /// The position whose results the read continues.
    let position: SQLitePosition
    private let finished = DispatchSemaphore(value: 0)
    /// On the store's thread: whether `finished` was waited for.
    private(set) var isOver = false
    /// The rows, filled in place: held here alone, so that filling them copies nothing.
    private var rows: CopiedSortRows?
    /// Whether the rows are those after `boundary` at `position`: false when the snapshot was
    /// not at `position` or the read failed.
    private var isCurrent = false

    init(limit: Int, boundary: LoadBoundary<[DatabaseValue]>, position: SQLitePosition, rows: consuming CopiedSortRows)
    {
        self.limit = limit
        self.boundary = boundary
        self.position = position
        self.rows = rows
    }

    /// Called once, on the reader's thread: empties the rows, fills them with `body`, which
    /// returns whether they are current, and signals.
    func fill(_ body: (inout CopiedSortRows) throws -> Bool) {
        defer { finished.signal() }
        guard var filled = rows.take() else { return }
        filled.removeAll()
        isCurrent = (try? body(&filled)) ?? false
        rows = consume filled
    }

    /// Waits for the reader's signal, once.
    func waitUntilOver() {
        guard !isOver else { return }
        finished.wait()
        isOver = true
    }

    /// The rows and whether they are current, once the read is over; called once.
    func take() -> (rows: CopiedSortRows, isCurrent: Bool) {
        waitUntilOver()
        guard let taken = rows.take() else { preconditionFailure("a read ahead's rows are taken once") }
        return (taken, isCurrent)
    }
}
