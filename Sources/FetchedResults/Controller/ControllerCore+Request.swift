extension ControllerCore {
    // MARK: - Changing the request

    /// Replaces the request of a live controller — a new predicate as a search box narrows the
    /// list, a new sort — and reports the move from the old results to the new ones as one
    /// change set, computed by comparing the two (GRDB's `setRequest`; Core Data's changed
    /// request followed by `performFetch()`). The section key path stays: the new request's
    /// first sort descriptor must still sort by it. Tracking goes on as before.
    ///
    /// Before the first fetch, the request is only replaced: ``performFetch()`` fetches it.
    ///
    /// - Throws: ``FetchedResultsError`` for a request the controller or the store cannot follow,
    ///   ``FetchedResultsError/calledInsideCallback(method:)`` from inside a change callback, or
    ///   the store's error; the controller then keeps its request and results.
    func setFetchRequest(_ request: TableFetchRequest) throws {
        try exclusive("setFetchRequest(_:)") {
            try refuseInsideCallback("setFetchRequest(_:)")
            let previous = fetchRequest
            fetchRequest = request
            do {
                try validateRequest()
                guard state != nil else { return }
                try prepareStore(tracking: isTracking)
                let sameOrder = request.sortDescriptors == previous.sortDescriptors
                try accessingStore { try store.read(consistent: true) { try refetchAndDiff($0, sameOrder: sameOrder) } }
                noteConnectionState(error: nil)
            } catch {
                fetchRequest = previous
                if state != nil { try? prepareStore(tracking: isTracking) }
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
