extension ControllerCore {
    // MARK: - Changing the request

    /// Replaces the request of a live controller — a new predicate as a search box narrows the
    /// list, a new sort — and reports the move from the old results to the new ones as one
    /// change set, computed by comparing the two (GRDB's `setRequest`; Core Data's changed
    /// request followed by `performFetch()`). The section key path stays: the new request's
    /// first sort descriptor must still sort by it. Tracking goes on as before.
    ///
    /// A request that differs only by a ``TextFilter`` narrowing the one before (or a first
    /// one) is answered from the sort keys held, without a query, once every row is loaded and
    /// the controller tracks changes; with a batch size, so is a shorter text or no filter after
    /// filters answered so, from the keys the first one narrowed and the rows changed since.
    /// Commits not looked at yet then arrive first, as a change set of their own.
    ///
    /// Before the first fetch, the request is only replaced: ``performFetch()`` fetches it.
    ///
    /// - Throws: ``FetchedResultsError`` for a request the controller or the store cannot follow,
    ///   ``FetchedResultsError/calledInsideCallback(method:)`` from inside a change callback, or
    ///   the store's error; the controller then keeps its request and results (refetched at the
    ///   next look when the store's error came after it had started reading).
    func setFetchRequest(_ request: TableFetchRequest) throws {
        try exclusive("setFetchRequest(_:)") {
            try refuseInsideCallback("setFetchRequest(_:)")
            let previous = fetchRequest
            fetchRequest = request
            // Whether the feed was read or tracking restarted: what the store had noted may be
            // gone, and after an error only a refetch is sure to be exact.
            var feedDisturbed = false
            do {
                try validateRequest()
                guard state != nil else { return }
                feedDisturbed = true
                if let answer = inMemoryAnswer(to: request, previous: previous),
                    try accessingStore({ try store.read(consistent: false) { try follow($0) } }) != .mustRefetch
                {
                    // The results are now exact at the position held. The same rows of the same
                    // tables are followed: tracking goes on, and what it notes from here on is
                    // looked at next, under the new request.
                    try store.prepare(request, sectionNameKeyPath: sectionNameKeyPath)
                    try accessingStore {
                        try store.read(consistent: true) { try self.answer(request, answer, previous: previous, $0) }
                    }
                    noteConnectionState(error: nil)
                    return
                }
                try prepareStore(tracking: isTracking)
                let sameOrder = request.sortDescriptors == previous.sortDescriptors
                try accessingStore { try store.read(consistent: true) { try refetchAndDiff($0, sameOrder: sameOrder) } }
                noteConnectionState(error: nil)
            } catch {
                fetchRequest = previous
                if feedDisturbed {
                    try? prepareStore(tracking: isTracking)
                    needsRefetch = true
                }
                throw error
            }
        }
    }

    /// Prepares the store for the request, and follows again the tables it reads.
    private func prepareStore(tracking: Bool) throws {
        try store.prepare(fetchRequest, sectionNameKeyPath: sectionNameKeyPath)
        if tracking {
            store.stopTracking()
            try store.startTracking()
        }
    }
}
