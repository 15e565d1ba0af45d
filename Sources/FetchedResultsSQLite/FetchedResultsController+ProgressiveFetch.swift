import FetchedResults
import GRDB

extension FetchedResultsController {
    /// How many rows ``loadMoreRows(_:)`` reads by default: a few milliseconds of work, so an
    /// app that loads between key presses stays responsive.
    public static var defaultLoadStep: Int { 20_000 }

    /// Fetches only the first `count` rows of the results — what a screen shows first — and
    /// starts tracking changes when there is a delegate; ``loadMoreRows(_:)`` loads the rest.
    ///
    /// Not in Core Data: its fetch is all or nothing. Here a list of a million rows can show its
    /// first screen in a few milliseconds instead of waiting for the whole ordering. Until every
    /// row is loaded, the results are exactly the matching rows up to the last one loaded, in
    /// order, and behave like any results: changes committed meanwhile arrive as usual (a row
    /// that moves past the last loaded one leaves the results until the load reaches it again;
    /// one that moves before it enters), and each step of the load arrives as a change set of
    /// rows (and sections) inserted at the end. With a usable cache (see ``saveCache()``), the
    /// first step takes every other row from it at once.
    ///
    /// Without a delegate nothing is tracked, and the later steps read from the store as it is
    /// then: rows that moved meanwhile may be missed or appear where they no longer are, as in
    /// any untracked results.
    ///
    /// - Parameter count: how many rows to fetch first, at least one.
    /// - Throws: as ``performFetch()``.
    public func performFetch(firstRows count: Int) throws {
        precondition(count > 0, "a progressive fetch starts with at least one row")
        #if DEBUG
        exclusiveAccess.enter()
        defer { exclusiveAccess.leave() }
        #endif
        try fetch(firstRows: count)
    }

    /// Whether a progressive fetch still has rows to load (see ``performFetch(firstRows:)``).
    public var hasRowsToLoad: Bool { loadBoundary != nil }

    /// The number of rows held now, loaded or not: all the matching rows once the load is done.
    public var heldRowCount: Int { state?.keys.count ?? 0 }

    /// Loads the next `count` rows of a progressive fetch and tells the delegate, as a change
    /// set of rows inserted at the end; returns whether rows remain to load.
    ///
    /// Changes committed since the last look are applied first (with their own callbacks), in
    /// the same read transaction as the new rows, so the results stay exactly the matching rows
    /// up to the last one loaded.
    ///
    /// - Throws: the database error that stopped it, which the delegate has heard too; the
    ///   results stay as they were, and the next call tries again.
    @discardableResult
    public func loadMoreRows(_ count: Int = defaultLoadStep) throws -> Bool {
        precondition(count > 0, "a step of a progressive fetch loads at least one row")
        guard loadBoundary != nil, state != nil else { return false }
        #if DEBUG
        exclusiveAccess.enter()
        defer { exclusiveAccess.leave() }
        #endif
        do {
            try database.read { db in
                if self.isTracking {
                    // A refetch loads every row: the load is then done.
                    if try self.needsRefetch || self.schemaChanged(db) { return try self.refetchAndDiff(db) }
                    if let lastSeen = self.lastSeenSequence, try ChangeHistory.latestSequence(db) > lastSeen {
                        try self.syncFromHistory(touched: [], db: db)
                    }
                    if self.cacheMayFinishLoad {
                        self.cacheMayFinishLoad = false
                        if try self.finishFromCache(db) { return }
                    }
                }
                try self.appendNextRows(count, db: db)
            }
        } catch {
            if isTracking { fail(with: error) }
            throw error
        }
        return loadBoundary != nil
    }

    /// Takes every row from a valid cache file (brought up to this snapshot by the change
    /// history, as the rows held were a moment ago) and tells the delegate of the rows after
    /// those held; returns false, changing nothing, when there is no usable cache.
    private func finishFromCache(_ db: Database) throws -> Bool {
        guard let held = state else { return false }
        guard try loadFromCache(db) else { return false }
        // Both are exact at this snapshot, so the held rows are the cached results' first rows;
        // were they not, the general difference would still be exact.
        let flatDifference = changeStyles.contains(.difference)
        let changes = try state!.changes(appendedTo: held, flatDifference: flatDifference)
            ?? ResultsState.difference(from: held, to: state!, flatDifference: flatDifference) { _, keyChanged in
                keyChanged ? Set(try currentSchema(db).columns) : []
            }
        if !changes.isEmpty { deliver(changes, db: db) }
        return true
    }

    /// Reads the rows after the boundary and appends them. Held rows are exactly the matching
    /// rows up to the boundary in this snapshot, so these are the next ones.
    private func appendNextRows(_ count: Int, db: Database) throws {
        guard let boundary = loadBoundary, let held = state?.keys else { return }
        // Untracked results may still hold a row that has since moved past the boundary.
        let next = try readOrdered(db, limit: count, after: boundary, held: isTracking ? nil : held)
        let newBoundary = next.count < count ? nil : next.last
        let changes = try state!.append(next.keys, flatDifference: changeStyles.contains(.difference)) { id in
            try self.sectionName(ofRow: id, loaded: next.loaded[id], db)
        }
        records.storeBatch(next.loaded)
        loadBoundary = newBoundary
        cacheIsStale = true
        if isTracking, !changes.isEmpty { deliver(changes, db: db) }
    }

    /// The rows of `fresh` that the results hold while loading: those not after the boundary.
    func keepingLoaded(_ fresh: [Int64: Row]) -> [Int64: Row] {
        guard let boundary = loadBoundary?.key else { return fresh }
        return fresh.filter { SortKey.compare(key(of: $0.value), boundary) <= 0 }
    }
}

/// The last row a progressive fetch loaded, as it was read: its key, and its sort values and
/// row id for the query that reads the rows after it.
struct LoadBoundary {
    var key: [UInt8]
    var values: [DatabaseValue]
    var rowID: Int64
}
