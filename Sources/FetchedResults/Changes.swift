import GRDB

/// The kind of a change (Core Data's `NSFetchedResultsChangeType`).
public enum ChangeType: Sendable, Hashable {
    case insert, delete, move, update
}

/// One object's change in a committed transaction, with table-view batch-update paths:
/// `indexPath` against the old state (delete, move, update), `newIndexPath` against the new
/// state (insert, move, update).
///
/// An object has one change per batch, with one exception: when its order relative to other
/// rows changed but its index path did not (rows were inserted and deleted around it), it is
/// reported as a `delete` and an `insert` at that same path, because table views reject a
/// move whose source and destination are equal.
public struct ObjectChange: Sendable, Hashable {
    /// What happened to the object.
    public var type: ChangeType
    /// The object's row id, which identifies it across changes.
    public var rowID: Int64
    /// Where the object was before the transaction (nil for an insert).
    public var indexPath: IndexPath?
    /// Where the object is after the transaction (nil for a delete).
    public var newIndexPath: IndexPath?
    /// The columns whose values changed (for updates and moves), so a view can redraw one cell.
    public var changedColumns: Set<String>

    /// A change as the controller reports it (tests and replays build their own).
    public init(type: ChangeType, rowID: Int64, indexPath: IndexPath?, newIndexPath: IndexPath?, changedColumns: Set<String> = []) {
        self.type = type
        self.rowID = rowID
        self.indexPath = indexPath
        self.newIndexPath = newIndexPath
        self.changedColumns = changedColumns
    }
}

/// One section's insertion, deletion or renaming; the index is against the old state for
/// deletes, and against the new state for inserts and updates.
///
/// An `update` says that a section kept its rows' identity but changed its name: a section is
/// named after its first row, so under `NOCASE` a section of "kappa" and "Kappa" rows is
/// renamed when the other spelling comes first. Redraw its header; its rows get their own
/// changes.
public struct SectionChange: Sendable, Hashable {
    /// Inserted, deleted or renamed (`update`).
    public var type: ChangeType
    /// The section's index: in the old state for a delete, in the new one otherwise.
    public var index: Int
    /// The section's name (its new name for an update).
    public var name: String

    /// A section change as the controller reports it.
    public init(type: ChangeType, index: Int, name: String) {
        self.type = type
        self.index = index
        self.name = name
    }
}

/// The identifiers of the results in order, diffable-data-source style: section names and
/// row ids, plus the ids whose content changed and need reloading.
public struct ResultsSnapshot: Sendable, Equatable {
    /// Each section's name and its rows' ids, in order.
    public var sections: [(name: String, rowIDs: [Int64])]
    /// The rows whose content changed in the transaction (to reload, not move).
    public var reloadedRowIDs: Set<Int64>

    /// The section names, in order.
    public var sectionNames: [String] { sections.map(\.name) }
    /// Every row id, section after section.
    public var rowIDs: [Int64] { sections.flatMap(\.rowIDs) }

    public static func == (lhs: ResultsSnapshot, rhs: ResultsSnapshot) -> Bool {
        lhs.sectionNames == rhs.sectionNames && lhs.sections.map(\.rowIDs) == rhs.sections.map(\.rowIDs)
            && lhs.reloadedRowIDs == rhs.reloadedRowIDs
    }
}

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
