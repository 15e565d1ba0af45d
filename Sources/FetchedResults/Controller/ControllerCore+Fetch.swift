extension ControllerCore {
    // MARK: - Fetching

    /// How many rows ``loadMoreRows(_:)`` reads by default: a few milliseconds of work, so an
    /// app that loads between key presses stays responsive.
    static var defaultLoadStep: Int { 20_000 }

    /// Fetches only the first `count` rows of the results — what a screen shows first — and
    /// starts tracking as ``performFetch()`` does; ``loadMoreRows(_:)`` loads the rest.
    ///
    /// Not in Core Data: its fetch is all or nothing. Here a list of a million rows can show its
    /// first screen in a few milliseconds instead of waiting for the whole ordering. Until every
    /// row is loaded, the results are exactly the matching rows up to the last one loaded, in
    /// order, and behave like any results: changes committed meanwhile arrive as usual (a row
    /// that moves past the last loaded one leaves the results until the load reaches it again;
    /// one that moves before it enters), and each step of the load arrives as a change set of
    /// rows (and sections) inserted at the end. With a usable cache (see ``saveCache()``), the
    /// steps read the cache file instead, `count` rows of it per step (a cached row costs a small
    /// part of a stored one), and the step after the last one takes every row from it at once.
    ///
    /// Without tracking, the later steps read the store as it is then: rows that moved meanwhile
    /// may be missed or appear where they no longer are, as in any untracked results.
    ///
    /// - Parameter count: how many rows to fetch first, at least one.
    /// - Throws: as ``performFetch()``.
    func performFetch(firstRows count: Int) throws {
        precondition(count > 0, "a progressive fetch starts with at least one row")
        try exclusive("performFetch(firstRows:)") { try fetch(firstRows: count) }
    }

    /// Whether a progressive fetch still has rows to load (see ``performFetch(firstRows:)``).
    var hasRowsToLoad: Bool { exclusive("hasRowsToLoad") { loadBoundary != nil } }

    /// The number of rows held now, loaded or not: every matching row once a load is done.
    var heldRowCount: Int { exclusive("heldRowCount") { state?.keys.count ?? 0 } }

    /// The change feed's position the results are exact at, in the store's text form (the one a
    /// cache file keeps): the same commits give the same text in every process following the
    /// store, so a server can name its events by it and a client resume from it. Nil before a
    /// fetch, or when the store has no feed position to give.
    var feedPosition: String? { exclusive("feedPosition") { position.flatMap { store.feedPosition(of: $0) } } }

    /// The number of full rows held in memory: every row without a batch size, at most a few
    /// batches with one.
    var loadedRowCount: Int { exclusive("loadedRowCount") { records.rows.count } }

    /// ``performFetch()``, or with `firstRows` the start of a progressive fetch.
    func fetch(firstRows: Int?) throws {
        try refuseInsideCallback(firstRows == nil ? "performFetch()" : "performFetch(firstRows:)")
        try validateRequest()
        try store.prepare(fetchRequest, sectionNameKeyPath: sectionNameKeyPath)
        let tracking = hasListeners
        if tracking {
            try store.startTracking()
        } else {
            stopTracking()
        }
        isTracking = tracking
        // A cache file's results replace the state without `install(_:)`.
        filterBase = nil
        try store.read(consistent: true) { snapshot in
            // A progressive fetch shows its first rows before reading a cache file, which its
            // steps then read for every other row.
            if try firstRows != nil || !loadFromCache(snapshot) {
                install(try fetchAll(snapshot, firstRows: firstRows))
            }
            cacheLoad = tracking && loadBoundary != nil && cacheName != nil ? .untried : .none
        }
        noteConnectionState(error: nil)
    }

    func validateRequest() throws {
        guard let first = fetchRequest.sortDescriptors.first else {
            throw FetchedResultsError.missingSortDescriptors(table: fetchRequest.table)
        }
        if let sectionNameKeyPath, sectionNameKeyPath.lowercased() != first.key.lowercased() {
            throw FetchedResultsError.sectionKeyPathMismatch(
                sectionNameKeyPath: sectionNameKeyPath, firstSortKey: first.key)
        }
        if let filter = fetchRequest.textFilter { try validateTextFilter(filter) }
    }

    private func validateTextFilter(_ filter: TextFilter) throws {
        let descriptors = fetchRequest.sortDescriptors
        guard descriptors.indices.contains(filter.sortDescriptorIndex) else {
            throw FetchedResultsError.textFilterUnsupported(
                key: "sort descriptor \(filter.sortDescriptorIndex)",
                reason: "the request has \(descriptors.count) sort descriptors, counted from 0")
        }
        let key = descriptors[filter.sortDescriptorIndex].key
        guard !key.contains(".") else {
            throw FetchedResultsError.textFilterUnsupported(key: key, reason: "it crosses a relationship")
        }
        guard store.filtersText else {
            throw FetchedResultsError.textFilterUnsupported(key: key, reason: "\(Store.self) does not filter text")
        }
    }

    /// Everything a fetch produces, installed at once so that a failure leaves the previous
    /// results in place.
    struct Fetched {
        var state: ResultsState
        var records: RecordCache<Store.Row>
        var position: Store.Position
        var loadBoundary: LoadBoundary<Store.SortValues>?
    }

    func install(_ fetched: Fetched) {
        filterBase = nil
        state = fetched.state
        records = fetched.records
        position = fetched.position
        loadBoundary = fetched.loadBoundary
        readAheadAfter = nil
        needsRefetch = false
        lastFetchSource = .store
        cacheIsStale = true
    }

    /// The ordering (and, without a batch size, every row) in one ordered read; with
    /// `firstRows`, only the first rows of the order.
    func fetchAll(_ snapshot: Store.Snapshot, firstRows: Int? = nil) throws -> Fetched {
        let position = try store.position(in: snapshot)
        let ordered = try store.readOrdered(limit: firstRows, after: nil, skipping: { _ in false }, in: snapshot)
        var records = RecordCache<Store.Row>(batchSize: fetchRequest.fetchBatchSize)
        records.storeBatch(ordered.loaded)
        let state = try ResultsState(keys: ordered.keys.finish(), shape: shape) { rowID in
            try ordered.sectionNames[rowID] ?? sectionName(ofRow: rowID, loaded: records[rowID], snapshot)
        }
        let boundary = firstRows.flatMap { ordered.count == $0 ? ordered.last : nil }
        return Fetched(state: state, records: records, position: position, loadBoundary: boundary)
    }

    /// The name of the section a row starts: its first sort value as text ("" for NULL), from
    /// the row when it is loaded.
    func sectionName(ofRow rowID: Int64, loaded: Store.Row?, _ snapshot: Store.Snapshot) throws -> String {
        if let loaded { return store.sectionName(of: loaded) }
        return try store.sectionName(ofRow: rowID, in: snapshot)
    }

    // MARK: - Progressive fetch

    /// Loads the next `count` rows of a progressive fetch and tells the delegate, as a change
    /// set of rows inserted at the end; returns whether rows remain to load.
    ///
    /// When tracking, changes committed since the last look are applied first (with their own
    /// callbacks), in the same snapshot as the new rows, so the results stay exactly the
    /// matching rows up to the last one loaded. While the connection is away, nothing is loaded
    /// and the load goes on once it is back.
    ///
    /// - Throws: the error that stopped it, which the delegate has heard too; the results stay
    ///   as they were, and the next call tries again.
    @discardableResult
    func loadMoreRows(_ count: Int = defaultLoadStep) throws -> Bool {
        precondition(count > 0, "a step of a progressive fetch loads at least one row")
        return try exclusive("loadMoreRows(_:)") {
            try refuseInsideCallback("loadMoreRows(_:)")
            guard loadBoundary != nil, state != nil else { return false }
            do {
                try startTrackingIfAsked()
                let tookReadAhead = try takeRowsReadAhead(readingAhead: count)
                if !tookReadAhead {
                    try accessingStore {
                        try store.read(consistent: true) { snapshot in
                            if isTracking {
                                // The step that finishes from the cache file may need the results
                                // as they were before its look (see `finishFromCache`).
                                let beforeLook = cacheLoad.isFinishing ? state : nil
                                // A refetch loads every row: the load is then done.
                                if try follow(snapshot) == .mustRefetch { return try refetchAndDiff(snapshot) }
                                if try takeCacheStep(count, beforeLook: beforeLook, snapshot) { return }
                            }
                            try appendNextRows(count, snapshot)
                        }
                    }
                }
                noteConnectionState(error: nil)
                if !tookReadAhead { readAheadNextRows(count) }
            } catch  where store.isConnectionLoss(error) {
                noteConnectionState(error: error)
            } catch {
                if isTracking {
                    needsRefetch = true
                    report(error)
                }
                throw error
            }
            return loadBoundary != nil
        }
    }

    /// One step of taking the rest of the load from the cache file (see ``CacheLoad``): opening
    /// it and reading its first `count` rows, reading `count` more, or, once all are read,
    /// taking every row from it. Returns false, changing nothing, when there is no usable cache:
    /// the step then reads the store.
    private func takeCacheStep(_ count: Int, beforeLook: ResultsState?, _ snapshot: Store.Snapshot) throws -> Bool {
        let step = cacheLoad
        cacheLoad = .none
        // Consumed, so that the reader's arrays stay uniquely held while it reads: a second
        // reference would make every step copy the row locator, which grows with the rows.
        switch consume step {
        case .none:
            return false
        case .untried:
            // The file's last step appends every row in one change set: were it the delegate's
            // first, the styles it may implement (a snapshot, a flat difference of a million
            // rows) would all be computed. A step from the store teaches them first.
            if !knowsDelegateStyles {
                cacheLoad = .untried
                return false
            }
            guard let url = cacheFile, case let validity = try cacheValidity(snapshot),
                var reader = ResultsCacheFile.Reader(url: url, expecting: validity), reader.read(rows: count)
            else { return false }
            cacheLoad = .reading(reader)
            return true
        case .reading(var reader):
            if !reader.isComplete {
                guard reader.read(rows: count) else { return false }
                cacheLoad = .reading(reader)
                return true
            }
            return try finishFromCache(reader, beforeLook: beforeLook, snapshot)
        }
    }

    /// Takes every row from a cache file read whole (brought up to this snapshot by the change
    /// feed, as the rows held were a moment ago) and tells the delegate of the rows after those
    /// held; returns false, changing nothing, when the cache is not usable.
    ///
    /// - Parameter beforeLook: the results before this step's look, whose change set this one
    ///   must join.
    private func finishFromCache(
        _ reader: ResultsCacheFile.Reader, beforeLook: ResultsState?, _ snapshot: Store.Snapshot
    ) throws -> Bool {
        guard let held = state, let keys = reader.finish(), try cacheValidity(snapshot) == reader.header.validity,
            try install(cached: keys, header: reader.header, snapshot), let loaded = state
        else { return false }
        // Both are exact at this snapshot, so the held rows are the cached results' first rows.
        if let changes = loaded.changes(appendedTo: held, flatDifference: wantsFlatDifference) {
            enqueue(changes, appended: true)
            return true
        }
        // Were they not, the general difference is still exact: from the results before the
        // look, when it changed them, with the rows it reloaded reloaded again.
        let lookReloaded = undelivered?.reloadedRowIDs ?? []
        let from = undelivered == nil ? held : beforeLook ?? held
        undelivered = nil
        let changes = try ResultsState.difference(from: from, to: loaded, flatDifference: wantsFlatDifference) {
            rowID, keyChanged in
            keyChanged || lookReloaded.contains(rowID) ? try store.allColumns(in: snapshot) : []
        }
        enqueue(changes)
        return true
    }

    /// Takes the next rows from the read the store sent ahead, when the results are still as the
    /// step that sent it left them: the server ran it while the program went on. The store then
    /// reads the `count` rows after them ahead before these are taken. False when there is none
    /// to take; the step then reads the store itself.
    private func takeRowsReadAhead(readingAhead count: Int) throws -> Bool {
        guard let after = readAheadAfter else { return false }
        readAheadAfter = nil
        guard isTracking, let boundary = loadBoundary, boundary.key == after else {
            store.discardReadAhead()
            return false
        }
        // What was committed before this step is applied by it, as when it reads the store
        // itself: a look first, in a snapshot opened once the read ahead is over, and its rows
        // count only when the look found nothing.
        store.waitForReadAhead()
        let taken = try accessingStore {
            try store.read(consistent: false) { snapshot in
                guard try follow(snapshot) == .unchanged,
                    try store.takeReadAhead(readingAhead: count, in: snapshot, { next in try append(next, snapshot) })
                else { return false }
                readAheadAfter = loadBoundary?.key
                return true
            }
        }
        if !taken { store.discardReadAhead() }
        return taken
    }

    /// Has the store read the next `count` rows ahead, while the results follow the store and
    /// the steps read it (not the cache file).
    private func readAheadNextRows(_ count: Int) {
        guard isTracking, !needsRefetch, case .none = cacheLoad, let boundary = loadBoundary, let position else {
            return
        }
        // Were the connection broken, the next step reads the store itself and meets it there.
        let sent = (try? store.readAhead(limit: count, after: boundary, unchangedSince: position)) ?? false
        readAheadAfter = sent ? boundary.key : nil
    }

    /// Reads the rows after the boundary and appends them. Held rows are exactly the matching
    /// rows up to the boundary in this snapshot, so these are the next ones.
    private func appendNextRows(_ count: Int, _ snapshot: Store.Snapshot) throws {
        guard let boundary = loadBoundary, let held = state?.keys else { return }
        // Untracked results may still hold a row that has since moved past the boundary.
        let tracking = isTracking
        let next = try store.readOrdered(
            limit: count, after: boundary, skipping: { !tracking && held.contains($0) }, in: snapshot)
        try append(next, snapshot)
    }

    /// Appends the rows read after the boundary and tells the delegate; the last row read is
    /// the next boundary when the read reached its limit.
    private func append(_ next: OrderedRead<Store.Row, Store.SortValues>, _ snapshot: Store.Snapshot) throws {
        guard
            let changes = try state?.append(
                next.keys, flatDifference: wantsFlatDifference,
                sectionName: { id in
                    try next.sectionNames[id] ?? sectionName(ofRow: id, loaded: next.loaded[id], snapshot)
                })
        else { return }
        records.storeBatch(next.loaded)
        loadBoundary = next.last
        cacheIsStale = true
        if isTracking { enqueue(changes, appended: true) }
    }

    /// The rows of `fresh` that the results hold while loading: those not after the boundary.
    func keepingLoaded(_ fresh: [Int64: Store.Row]) -> [Int64: Store.Row] {
        guard let boundary = loadBoundary?.key else { return fresh }
        return fresh.filter { SortKey.compare(store.key(of: $0.value, rowID: $0.key), boundary) <= 0 }
    }
}
