import FetchedResults

/// Receives a controller's changes, once per committed transaction that touches its results
/// (Core Data's `NSFetchedResultsControllerDelegate`). Every method has an empty default, so a
/// delegate implements only the style it wants: per-change callbacks, a snapshot, or a
/// `CollectionDifference`.
///
/// Callbacks arrive synchronously on the thread that committed the transaction, after the
/// commit, so that a view can update before the writing call returns (see the controller's
/// Threading section).
public protocol FetchedResultsControllerDelegate: AnyObject {
    /// A batch begins: call `beginUpdates()` here.
    func controllerWillChangeContent(_ controller: AnyFetchedResultsController)
    /// A section was inserted (new index) or deleted (old index). Reported before row changes.
    func controller(_ controller: AnyFetchedResultsController, didChange section: SectionChange)
    /// An object was inserted, deleted, moved or updated.
    func controller(_ controller: AnyFetchedResultsController, didChange object: ObjectChange)
    /// The batch ends: call `endUpdates()` here.
    func controllerDidChangeContent(_ controller: AnyFetchedResultsController)
    /// The whole new state as a snapshot (an alternative to the per-change callbacks).
    func controller(_ controller: AnyFetchedResultsController, didChangeContentWith snapshot: ResultsSnapshot)
    /// The change of the flat, ordered list of row ids (an alternative to the per-change callbacks).
    func controller(_ controller: AnyFetchedResultsController, didChangeContentWith difference: CollectionDifference<Int64>)
    /// The controller could not follow a commit: a read failed, the table was dropped, a
    /// refetch failed. The controller keeps its last good results and refetches at the next
    /// commit or ``FetchedResultsController/processExternalChanges()``. Required, as GRDB's
    /// `ValueObservation` requires `onError`: an error nobody hears is a silent wrong answer.
    func controller(_ controller: AnyFetchedResultsController, didFailWith error: any Error)
}

/// Every callback but the failure one is optional: implement those of the change style you use.
public extension FetchedResultsControllerDelegate {
    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) {}
    func controller(_ controller: AnyFetchedResultsController, didChange section: SectionChange) {}
    func controller(_ controller: AnyFetchedResultsController, didChange object: ObjectChange) {}
    func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {}
    func controller(_ controller: AnyFetchedResultsController, didChangeContentWith snapshot: ResultsSnapshot) {}
    func controller(_ controller: AnyFetchedResultsController, didChangeContentWith difference: CollectionDifference<Int64>) {}
}

/// The type-erased face of a controller that delegates receive.
public protocol AnyFetchedResultsController: AnyObject {
    var fetchRequest: TableFetchRequest { get }
    var sectionNameKeyPath: String? { get }
}
