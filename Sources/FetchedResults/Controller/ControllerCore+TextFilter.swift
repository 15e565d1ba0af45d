/// The results a text filter narrowed in memory, kept while filters narrow them further, so
/// that a shorter text (Backspace, Esc) widens them in memory too.
struct TextFilterBase {
    /// The request whose results `keys` were.
    var request: TableFetchRequest
    /// Its rows' keys when it was narrowed.
    var keys: OrderedKeys
    var sectionNames: [[UInt8]: KnownSectionName]
    /// The rows changes have touched since: their keys in `keys` may be out of date.
    var touched: Set<Int64> = []
}

extension ControllerCore {
    // MARK: - Text filters in memory

    /// Whether the results of `narrow` are those of `wide` whose sort keys match its text
    /// filter: the two differ only by that filter, which narrows `wide`'s (or is the first).
    static func narrows(_ wide: TableFetchRequest, to narrow: TableFetchRequest) -> Bool {
        guard narrow.table == wide.table, narrow.rowIDColumn == wide.rowIDColumn,
            narrow.sortDescriptors == wide.sortDescriptors, narrow.fetchLimit == wide.fetchLimit,
            narrow.fetchOffset == wide.fetchOffset, narrow.fetchBatchSize == wide.fetchBatchSize,
            narrow.relationships == wide.relationships,
            narrow.relationshipKeyPathsForRefreshing == wide.relationshipKeyPathsForRefreshing,
            isSame(narrow.predicate, wide.predicate)
        else { return false }
        guard let filter = narrow.textFilter else { return wide.textFilter == nil }
        // An empty text matches every text value, which the sort keys' matcher does not answer.
        guard !filter.matchedText.isEmpty else { return false }
        guard let before = wide.textFilter else { return true }
        return before.matcher(wide.sortDescriptors).isNarrowed(by: filter.matcher(narrow.sortDescriptors))
    }

    /// How the results held can answer `request` in memory, if they can: they are exact, every
    /// row is loaded, the store goes on following the same rows, and `request` narrows the
    /// request held or, with a batch size (rows not held are read when asked for), the results a
    /// text filter narrowed.
    func inMemoryAnswer(to request: TableFetchRequest, previous: TableFetchRequest) -> InMemoryAnswer? {
        guard isTracking, let state, loadBoundary == nil, !needsRefetch, !state.shape.isWindowed else { return nil }
        if let filter = request.textFilter, Self.narrows(previous, to: request) { return .narrowing(filter) }
        guard let filterBase, request.fetchBatchSize > 0, Self.narrows(filterBase.request, to: request) else {
            return nil
        }
        return .refiltering
    }

    /// How a request is answered in memory.
    enum InMemoryAnswer {
        /// The results held, narrowed by the request's filter.
        case narrowing(TextFilter)
        /// The results the first filter narrowed, filtered again.
        case refiltering
    }

    /// Changes the results held to those of `request` as `answer` says, and enqueues the change
    /// set: narrowed from the results held, or from the results the first filter narrowed, with
    /// the rows changes touched since read again. The position stays: changes committed since
    /// are looked at next, under the new request.
    func answer(
        _ request: TableFetchRequest, _ answer: InMemoryAnswer, previous: TableFetchRequest,
        _ snapshot: Store.Snapshot
    ) throws {
        guard let old = state, let position else { return }
        switch answer {
        case let .narrowing(filter):
            let base = filterBase ?? TextFilterBase(request: previous, keys: old.keys, sectionNames: old.sectionNames)
            try narrow(old, by: filter, position: position, snapshot)
            filterBase = base
        case .refiltering:
            guard let base = filterBase else { return }
            try refilter(old, from: base, to: request, previous: previous, position: position, snapshot)
            // Back to the results the first filter narrowed: nothing is left to widen.
            filterBase = request.textFilter == nil ? nil : base
        }
    }

    /// Keeps the rows held whose sort keys match `filter`.
    private func narrow(
        _ old: ResultsState, by filter: TextFilter, position: Store.Position, _ snapshot: Store.Snapshot
    ) throws {
        var hidden: [(rowID: Int64, position: Int)] = []
        let keys = old.keys.keeping(matchesOf: filter.matcher(fetchRequest.sortDescriptors)) { rowID, position in
            hidden.append((rowID, position))
        }
        var records = self.records
        if records.isBatching {
            for rowID in records.heldRowIDs where !keys.contains(rowID) { records.remove(rowID) }
        } else {
            for row in hidden { records.remove(row.rowID) }
        }
        // Known names stand for the sections whose first row stays first; the others are read.
        let narrowed = try ResultsState(keys: keys, shape: shape, knownNames: old.sectionNames, recheck: []) { rowID in
            try sectionName(ofRow: rowID, loaded: records[rowID], snapshot)
        }
        let changes = ChangeSetBuilder.hidingAndShowing(
            from: old.layout, to: narrowed.layout, hidden: hidden, shown: [], flatDifference: wantsFlatDifference)
        install(Fetched(state: narrowed, records: records, position: position, loadBoundary: nil))
        enqueue(changes)
    }

    /// The rows of `base` that match `request`'s filter (all of them without one), with the
    /// rows touched since it was taken read again under `request`: a shorter text, or another.
    private func refilter(
        _ old: ResultsState, from base: TextFilterBase, to request: TableFetchRequest, previous: TableFetchRequest,
        position: Store.Position, _ snapshot: Store.Snapshot
    ) throws {
        let descriptors = request.sortDescriptors
        guard base.touched.isEmpty, let inForce = previous.textFilter else {
            return try refilter(old, from: base, touched: base.touched, to: request, position: position, snapshot)
        }
        // Nothing changed since the base was taken: the rows shown are the base's that the
        // filter in force matches, and each row's place follows from the two filters alone.
        var hidden: [(rowID: Int64, position: Int)] = [], shown: [(rowID: Int64, position: Int)] = []
        let keys = base.keys.refiltered(
            from: inForce.matcher(descriptors), to: request.textFilter?.matcher(descriptors),
            removed: { hidden.append(($0, $1)) }, inserted: { shown.append(($0, $1)) })
        let records = self.records
        let refiltered = try ResultsState(
            keys: keys, shape: shape, knownNames: base.sectionNames, recheck: []
        ) { rowID in
            try sectionName(ofRow: rowID, loaded: records[rowID], snapshot)
        }
        let changes = ChangeSetBuilder.hidingAndShowing(
            from: old.layout, to: refiltered.layout, hidden: hidden, shown: shown, flatDifference: wantsFlatDifference)
        install(Fetched(state: refiltered, records: records, position: position, loadBoundary: nil))
        enqueue(changes)
    }

    /// ``refilter(_:from:to:previous:position:_:)`` after changes touched rows of the base: the
    /// touched rows are read again, and the old results compared with the new in key order.
    private func refilter(
        _ old: ResultsState, from base: TextFilterBase, touched: Set<Int64>, to request: TableFetchRequest,
        position: Store.Position, _ snapshot: Store.Snapshot
    ) throws {
        var keys =
            request.textFilter.map { base.keys.keeping(matchesOf: $0.matcher(request.sortDescriptors)) } ?? base.keys
        let fresh = try store.rows(Array(touched), matching: true, in: snapshot)
        for rowID in touched { _ = keys.remove(rowID: rowID) }
        for (rowID, row) in fresh { keys.insert(rowID: rowID, key: store.key(of: row, rowID: rowID)) }
        let records = self.records
        // A touched row may spell its section's value otherwise with the same key ("P1", "p1").
        let refiltered = try ResultsState(
            keys: keys, shape: shape, knownNames: base.sectionNames, recheck: touched
        ) { rowID in
            try sectionName(ofRow: rowID, loaded: fresh[rowID] ?? records[rowID], snapshot)
        }
        let store = self.store
        let changes = ResultsState.sameOrderDifference(
            from: old, to: refiltered, flatDifference: wantsFlatDifference, loaded: records.heldRowIDs
        ) { rowID, _ in
            guard let row = fresh[rowID] else { return [] }
            return store.changedColumns(from: records[rowID], to: row)
        }
        var kept = records
        kept.apply(touched: touched, fresh: fresh)
        install(Fetched(state: refiltered, records: kept, position: position, loadBoundary: nil))
        enqueue(changes)
    }

    /// Whether two predicates are the same condition: both none, or equal values of one type.
    private static func isSame(_ one: (any FetchPredicate)?, _ other: (any FetchPredicate)?) -> Bool {
        switch (one, other) {
        case (nil, nil): true
        case let (one?, other?): (one as? any Equatable)?.isEqual(to: other) ?? false
        default: false
        }
    }
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool { (other as? Self) == self }
}
