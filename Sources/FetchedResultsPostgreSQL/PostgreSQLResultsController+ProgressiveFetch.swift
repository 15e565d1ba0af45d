import FetchedResults

extension PostgreSQLResultsController {
    /// How many rows ``loadMoreRows(_:)`` reads by default.
    public static var defaultLoadStep: Int { 20_000 }

    /// Fetches only the first `count` rows of the results — what a screen shows first — and
    /// listens for changes when there is a delegate; ``loadMoreRows(_:)`` loads the rest. The
    /// SQLite controller's progressive fetch, on the server: until every row is loaded, the
    /// results are exactly the matching rows up to the last one loaded, changes arrive as
    /// usual, and each step of the load arrives as rows (and sections) inserted at the end.
    /// With a usable cache, the first step takes every other row from it at once.
    ///
    /// - Parameter count: how many rows to fetch first, at least one.
    /// - Throws: as ``performFetch()``.
    public func performFetch(firstRows count: Int) throws {
        precondition(count > 0, "a progressive fetch starts with at least one row")
        try fetch(firstRows: count)
    }

    /// Whether a progressive fetch still has rows to load.
    public var hasRowsToLoad: Bool { loadBoundary != nil }

    /// The number of rows held now: all the matching rows once the load is done.
    public var heldRowCount: Int { state?.keys.count ?? 0 }

    /// Loads the next `count` rows of a progressive fetch and tells the delegate, as rows
    /// inserted at the end; returns whether rows remain to load.
    ///
    /// In one repeatable-read transaction (one snapshot), the changes committed since the last
    /// look are applied first, with their own callbacks, then the rows after the last one
    /// loaded are read. A lost connection is not thrown, as in ``processExternalChanges()``:
    /// the delegate hears it, and a later call reconnects and goes on.
    ///
    /// - Throws: any other error, which the delegate has heard too; the results stay as they
    ///   were.
    @discardableResult
    public func loadMoreRows(_ count: Int = defaultLoadStep) throws -> Bool {
        precondition(count > 0, "a step of a progressive fetch loads at least one row")
        guard loadBoundary != nil, state != nil else { return false }
        guard let connection = try? connect() else { return true }
        do {
            if isTracking { _ = try connection.notifications() }
            try connection.transaction(isolation: "REPEATABLE READ READ ONLY") {
                if isTracking {
                    // A refetch loads every row: the load is then done.
                    guard !needsRefetch, let position else { return try refetchAndDiff(connection) }
                    let read = try readChanges(since: position, connection)
                    if read.mustRefetch { return try refetchAndDiff(connection) }
                    if !read.touched.isEmpty { try apply(touched: read.touched, fresh: read.rows, connection, notify: true) }
                    self.position = read.position
                    if cacheMayFinishLoad {
                        cacheMayFinishLoad = false
                        if try finishFromCache(connection) { return }
                    }
                }
                try appendNextRows(count, connection)
            }
        } catch let error as PostgreSQLError where error.isConnectionLost {
            lose(connection, error)
        } catch {
            if isTracking {
                needsRefetch = true
                report(error)
            }
            throw error
        }
        return loadBoundary != nil
    }

    /// Takes every row from a valid cache file (brought up to this snapshot by the change
    /// feed, as the rows held were a moment ago) and tells the delegate of the rows after
    /// those held; returns false, changing nothing, when there is no usable cache.
    private func finishFromCache(_ connection: PostgreSQLConnection) throws -> Bool {
        guard let held = state, try loadFromCache(connection) else { return false }
        // Both are exact at this snapshot, so the held rows are the cached results' first rows;
        // were they not, the general difference would still be exact.
        let flatDifference = changeStyles.contains(.difference)
        let changes = state!.changes(appendedTo: held, flatDifference: flatDifference)
            ?? ResultsState.difference(from: held, to: state!, flatDifference: flatDifference) { rowID, keyChanged in
                keyChanged ? Set(records[rowID]?.columns ?? [fetchRequest.keyColumn]) : []
            }
        if !changes.isEmpty { deliver(changes) }
        return true
    }

    /// Reads the rows after the boundary and appends them.
    private func appendNextRows(_ count: Int, _ connection: PostgreSQLConnection) throws {
        guard let boundary = loadBoundary, let held = state?.keys else { return }
        // Untracked results may still hold a row that has since moved past the boundary.
        let next = try readOrdered(connection, limit: count, after: boundary, held: isTracking ? nil : held)
        let changes = try state!.append(next.keys, flatDifference: changeStyles.contains(.difference)) { id in
            if let name = next.startNames[id] { return name }
            return try sectionName(ofRow: id, loaded: next.loaded[id], connection)
        }
        records.storeBatch(next.loaded)
        loadBoundary = next.count < count ? nil : next.last
        cacheIsStale = true
        if isTracking, !changes.isEmpty { deliver(changes) }
    }

    /// The rows of `fresh` that the results hold while loading: those not after the boundary.
    func keepingLoaded(_ fresh: [Int64: PostgreSQLRow]) -> [Int64: PostgreSQLRow] {
        guard let boundary = loadBoundary?.key else { return fresh }
        return fresh.filter { SortKey.compare(key(of: $0.value), boundary) <= 0 }
    }
}

/// The last row a progressive fetch loaded, as it was read: its key, and its sort values (as
/// the server sent them) and id for the query that reads the rows after it.
struct PostgreSQLLoadBoundary {
    var key: [UInt8]
    var values: [String?]
    var rowID: Int64
}
