import FetchedResults

/// Counts a controller's per-change callbacks, which every timed loop checks against the wins it
/// made, and keeps the error that stopped it following, if one did.
final class CountingDelegate<Record>: FetchedResultsControllerDelegate {
    var changes = 0
    var failure: (any Error)?

    func controller(_ controller: FetchedResultsController<Record>, didChange object: ObjectChange) {
        changes += 1
    }

    func controller(_ controller: FetchedResultsController<Record>, didFailWith error: any Error) {
        failure = error
    }
}
