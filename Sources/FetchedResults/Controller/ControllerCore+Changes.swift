extension ControllerCore {
    // MARK: - Following the store

    /// Applies what was committed since the last look — by this program through another
    /// connection, by another process, by another machine — and tells the delegate; returns
    /// whether anything touching the results was committed (Core Data's
    /// `processPendingChanges()`). Cheap when nothing was (one indexed query), so a loop can
    /// call it whenever ``wakeDescriptor`` turns readable and at ``nextLookDeadline``.
    ///
    /// A lost connection is not thrown: the delegate hears of it, ``connectionState`` says
    /// `reconnecting`, and later looks reconnect and catch up in one change set.
    ///
    /// - Throws: any other error (a dropped table, a refused query), which the delegate has
    ///   heard too; the results stay the last good ones, and the next look refetches.
    @discardableResult
    func processPendingChanges() throws -> Bool {
        try exclusive("processPendingChanges()") {
            try refuseInsideCallback("processPendingChanges()")
            // What woke the loop is read away before the feed is, so that a commit after this
            // look wakes the next.
            store.didWake(inLoop: waitedSinceLastLook)
            waitedSinceLastLook = false
            try startTrackingIfAsked()
            guard isTracking, state != nil else { return false }
            return try look()
        }
    }

    /// One look at the feed, and a refetch when only that is exact.
    func look() throws -> Bool {
        do {
            var outcome = try accessingStore { try store.read(consistent: false) { try follow($0) } }
            if outcome == .mustRefetch {
                try accessingStore { try store.read(consistent: true) { try refetchAndDiff($0) } }
                outcome = .applied
            }
            noteConnectionState(error: nil)
            return outcome == .applied
        } catch  where store.isConnectionLoss(error) {
            noteConnectionState(error: error)
            return false
        } catch {
            needsRefetch = true
            report(error)
            throw error
        }
    }

    /// Runs `body` in one transaction on the store's connection for this controller, then
    /// delivers the changes it (and anyone before it) committed before returning — the way a
    /// table view wants a tap's write to show at once. Writes made elsewhere arrive at the next
    /// ``processPendingChanges()``.
    ///
    /// - Throws: the error of `body` or of the commit (nothing was committed then, unless the
    ///   connection broke while the commit was on its way);
    ///   ``FetchedResultsError/calledInsideCallback(method:)`` from inside a change callback.
    ///   An error met while delivering the committed changes is not thrown, since the write is
    ///   done: the delegate hears it, and the next look refetches.
    @discardableResult
    func write<T>(_ body: (Store.WriteContext) throws -> T) throws -> T {
        try exclusive("write(_:)") {
            try refuseInsideCallback("write(_:)")
            try startTrackingIfAsked()
            var mustRefetch = false
            let value: T
            do {
                value = try accessingStore {
                    try store.write(body) { snapshot in
                        guard isTracking, state != nil else { return }
                        do {
                            mustRefetch = try follow(snapshot) == .mustRefetch
                        } catch  where store.isConnectionLoss(error) {
                            noteConnectionState(error: error)
                        } catch {
                            needsRefetch = true
                            report(error)
                        }
                    }
                }
            } catch  where store.isConnectionLoss(error) {
                noteConnectionState(error: error)
                throw error
            }
            if mustRefetch { _ = try? look() }
            noteConnectionState(error: nil)
            return value
        }
    }

    /// ``write(_:)`` for a caller that knows the write context only as a type it names (the
    /// public controller, which does not know the store's type).
    func write<Context, T>(context: Context.Type, _ body: (Context) throws -> T) throws -> T {
        guard Context.self == Store.WriteContext.self else {
            throw FetchedResultsError.writeContextMismatch(
                given: "\(Context.self)", expected: "\(Store.WriteContext.self)")
        }
        // The same type, checked above: no cast at run time.
        return try write { try body(unsafeBitCast($0, to: Context.self)) }
    }

    /// Starts tracking at a look when a delegate or a sequence listens but the fetch did not
    /// track (the delegate was set after it): everything since the fetch is then found by one
    /// refetch, as one change set.
    func startTrackingIfAsked() throws {
        guard !isTracking, hasListeners, state != nil else { return }
        try store.startTracking()
        isTracking = true
        needsRefetch = true
    }

    /// Refuses a method that would change the results while callbacks describe them.
    func refuseInsideCallback(_ method: String) throws {
        if isDelivering { throw FetchedResultsError.calledInsideCallback(method: method) }
    }

    /// What one look did.
    enum LookOutcome: Equatable {
        case unchanged, applied, mustRefetch
    }

    /// Applies what the feed names since the position, in `snapshot`; says when only a refetch
    /// would be exact (after an error, pruned history, a schema change).
    func follow(_ snapshot: Store.Snapshot) throws -> LookOutcome {
        guard !needsRefetch, let position else { return .mustRefetch }
        switch try store.changes(since: position, in: snapshot) {
        case .mustRefetch:
            // The feed has handed over the commits it noted: only a refetch can show them now,
            // whichever look comes next.
            needsRefetch = true
            return .mustRefetch
        case let .changed(touched, rows, newPosition):
            if !touched.isEmpty {
                readAheadAfter = nil
                try apply(touched: touched, fresh: rows, snapshot, notify: true)
            }
            self.position = newPosition
            return touched.isEmpty ? .unchanged : .applied
        }
    }

    // MARK: - Applying changes

    /// Moves the touched rows to their new places (`fresh`: those that still match); nothing
    /// changes when reading a section name fails.
    ///
    /// - Parameter notify: false while a fetch catches up, when there is nothing to tell yet.
    func apply(touched: Set<Int64>, fresh allFresh: [Int64: Store.Row], _ snapshot: Store.Snapshot, notify: Bool) throws
    {
        filterBase?.touched.formUnion(touched)
        if touched.count == 1, !isLoadingProgressively, let rowID = touched.first, let row = allFresh[rowID],
            let changes = try applyOneRow(rowID, row, snapshot)
        {
            records.apply(rowID: rowID, fresh: row)
            cacheIsStale = true
            if notify { enqueue(changes) }
            return
        }
        let fresh = keepingLoaded(allFresh)
        let store = self.store
        guard
            let rows = state?.touchedRows(
                touched, fresh: fresh, key: store.key(of:rowID:),
                changedColumns: {
                    store.changedColumns(from: records[$0], to: $1)
                })
        else { return }
        // Optional chaining changes the keys in place: no copy of the state is held here.
        guard
            let changes = try state?.apply(
                rows, flatDifference: wantsFlatDifference,
                sectionName: { id in
                    try sectionName(ofRow: id, loaded: fresh[id] ?? records[id], snapshot)
                })
        else { return }
        records.apply(touched: touched, fresh: fresh)
        cacheIsStale = true
        if notify { enqueue(changes) }
    }

    /// The change set of a transaction that touched one row, held before and after, when the
    /// one-row path can place it (see `ResultsState.applyOneRow`); nil, changing nothing, else.
    @inline(__always)  // into apply: one lookup of each generic type's metadata, not one per call
    private func applyOneRow(
        _ rowID: Int64, _ row: Store.Row, _ snapshot: Store.Snapshot
    ) throws
        -> ChangeSetBuilder.Result?
    {
        guard state?.keys.contains(rowID) == true else { return nil }
        let changedColumns = store.changedColumns(from: records[rowID], to: row)
        return try state?.applyOneRow(
            rowID, newKey: store.key(of: row, rowID: rowID), changedColumns: changedColumns,
            sectionValueMayHaveChanged: sectionValueMayHaveChanged(changedColumns), flatDifference: wantsFlatDifference,
            sectionName: { id in try sectionName(ofRow: id, loaded: id == rowID ? row : records[id], snapshot) })
    }

    /// Whether a row whose `changed` columns changed may have a new section value: its section
    /// key's column among them, or a relationship key path, whose value lives in another table.
    private func sectionValueMayHaveChanged(_ changed: Set<String>) -> Bool {
        guard let key = sectionNameKeyPath else { return false }
        return key.utf8.contains(UInt8(ascii: ".")) || ColumnName.contains(key, in: changed)
    }

    /// Refetches everything and reports the difference: after pruned history, an unknown
    /// change, a schema change, an error, or a new request. Nothing changes when the refetch
    /// fails.
    ///
    /// - Parameter sameOrder: whether the request orders as before, so that a row whose key
    ///   changed changed too; after a new sort, only the rows held in both are compared.
    func refetchAndDiff(_ snapshot: Store.Snapshot, sameOrder: Bool = true) throws {
        var fetched = try fetchAll(snapshot)
        guard let old = state else { return install(fetched) }
        let oldRecords = records
        // Keep the rows that were loaded, read afresh, so their changes can be told apart.
        if fetched.records.isBatching {
            let kept = oldRecords.rows.keys.filter { fetched.state.keys.contains($0) }
            fetched.records.storeBatch(try store.rows(Array(kept), matching: false, in: snapshot))
        }
        let newRecords = fetched.records
        let store = self.store
        func changedColumns(_ rowID: Int64, keyChanged: Bool) throws -> Set<String> {
            if let oldRow = oldRecords[rowID], let newRow = newRecords[rowID] {
                return store.changedColumns(from: oldRow, to: newRow)
            }
            // Not loaded before: only a changed key shows that the row changed.
            return keyChanged && sameOrder ? try store.allColumns(in: snapshot) : []
        }
        let changes =
            sameOrder
            ? try ResultsState.sameOrderDifference(
                from: old, to: fetched.state, flatDifference: wantsFlatDifference, loaded: oldRecords.heldRowIDs,
                changedColumns: changedColumns)
            : try ResultsState.difference(
                from: old, to: fetched.state, flatDifference: wantsFlatDifference, changedColumns: changedColumns)
        install(fetched)
        enqueue(changes)
    }

    // MARK: - Delivery

    /// Runs one access to the store, then delivers the change set it made (also when it threw
    /// after making one): callbacks run outside the store's database access, so that they may
    /// read the controller (batches not yet loaded included) and the database.
    func accessingStore<T>(_ access: () throws -> T) rethrows -> T {
        defer { deliverUndelivered() }
        return try access()
    }

    /// Notes a change set for delivery once the store access under way is over. One access
    /// makes one change set; a progressive fetch's step that first applied what was committed
    /// then appends rows at the end, and both become one change set.
    func enqueue(_ changes: ChangeSetBuilder.Result, appended: Bool = false) {
        guard !changes.isEmpty else { return }
        guard let earlier = undelivered else {
            undelivered = changes
            return
        }
        precondition(appended, "one change set per store access, or rows appended after it")
        undelivered = earlier.followed(byAppended: changes)
    }

    /// Whether a change set has told which optional styles the delegate implements (or there
    /// is no delegate to tell).
    var knowsDelegateStyles: Bool {
        delegate == nil || (delegateStyles.snapshot != nil && delegateStyles.difference != nil)
    }

    /// Whether a look computes the flat list's changes: when the delegate implements the
    /// `CollectionDifference` callback, or may (it has not had a change set yet).
    var wantsFlatDifference: Bool { delegate != nil && delegateStyles.difference != false }

    /// Hands the change set made by the last store access to the delegate, in the styles it
    /// implements, and to the change sequences.
    func deliverUndelivered() {
        guard let changes = undelivered, let state else { return }
        undelivered = nil
        isDelivering = true
        defer { isDelivering = false }
        let delegate = owner == nil ? nil : self.delegate
        let wantsSnapshot =
            (delegate != nil && delegateStyles.snapshot != false) || streams.contains { $0.wantsSnapshots }
        let snapshot = wantsSnapshot ? state.snapshot(reloaded: changes.reloadedRowIDs) : nil
        if let delegate, let owner {
            delegate.controllerWillChangeContent(owner)
            for change in changes.sectionChanges { delegate.controller(owner, didChange: change) }
            for change in changes.objectChanges { delegate.controller(owner, didChange: change) }
            delegate.controllerDidChangeContent(owner)
            // A style's default implementation tells the controller it is not implemented
            // (see `noteDefaultCallback(_:)`): it is then no longer computed.
            if delegateStyles.snapshot != false, let snapshot {
                delegateStyles.snapshot = true
                delegate.controller(owner, didChangeContentWith: snapshot)
            }
            if delegateStyles.difference != false, let difference = CollectionDifference(changes.flatDifference) {
                delegateStyles.difference = true
                delegate.controller(owner, didChangeContentWith: difference)
            }
        }
        yieldToStreams(
            ChangeSet(sectionChanges: changes.sectionChanges, objectChanges: changes.objectChanges), snapshot)
    }

    /// Tells the delegate and the change sequences of an error.
    func report(_ error: any Error) {
        if let owner { delegate?.controller(owner, didFailWith: error) }
        failStreams(error)
    }

    /// Tells the delegate when the store's connection state changed: a loss (with the error
    /// that revealed it, reported first), each failed reconnection, and the return.
    func noteConnectionState(error: (any Error)?) {
        let current = store.connectionState
        guard current != deliveredConnectionState else { return }
        let wasConnected = deliveredConnectionState == .connected
        deliveredConnectionState = current
        guard let owner else { return }
        if wasConnected, let error { delegate?.controller(owner, didFailWith: error) }
        delegate?.controller(owner, didChangeConnectionState: current)
    }
}
