/// Receives a controller's changes, once per look that finds committed transactions touching its
/// results (Core Data's `NSFetchedResultsControllerDelegate`), whichever store it follows. Every
/// method but the failure one has a default, so a delegate implements only the style it wants
/// — per-change callbacks, a snapshot, a `CollectionDifference`, or several — and gets exactly
/// those: the controller learns at the first change set which ones the delegate implements, and
/// stops computing the others.
///
/// Callbacks are delivered by the controller's own methods — `processPendingChanges()`,
/// `write(_:)`, `loadMoreRows(_:)`, `setFetchRequest(_:)` — once their database access is over,
/// on the caller's thread, in the caller's isolation: never on another thread (see
/// ``FetchedResultsController``'s Threading section). Inside them, the controller shows the
/// results after the change set.
public protocol FetchedResultsControllerDelegate<Record>: AnyObject {
    /// The type of the controller's objects: each callback hands over the controller itself,
    /// so that the delegate reads them (`object(at:)`) without keeping its own reference.
    associatedtype Record

    /// A batch begins: call `beginUpdates()` here.
    func controllerWillChangeContent(_ controller: FetchedResultsController<Record>)
    /// A section was inserted (new index), deleted (old index) or renamed (`update`, new index).
    /// Reported before row changes.
    func controller(_ controller: FetchedResultsController<Record>, didChange section: SectionChange)
    /// An object was inserted, deleted, moved or updated.
    func controller(_ controller: FetchedResultsController<Record>, didChange object: ObjectChange)
    /// The batch ends: call `endUpdates()` here.
    func controllerDidChangeContent(_ controller: FetchedResultsController<Record>)
    /// The whole new state as a snapshot (an alternative to the per-change callbacks).
    func controller(_ controller: FetchedResultsController<Record>, didChangeContentWith snapshot: ResultsSnapshot)
    /// The change of the flat, ordered list of row ids (an alternative to the per-change callbacks).
    func controller(
        _ controller: FetchedResultsController<Record>,
        didChangeContentWith difference: CollectionDifference<Int64>)
    /// The store's connection was lost or came back (a server store). While it is away the
    /// controller keeps its last results and tries again at each look.
    func controller(
        _ controller: FetchedResultsController<Record>, didChangeConnectionState state: ConnectionState)
    /// The controller could not follow the store: a read failed, the table was dropped, the
    /// connection broke. It keeps its last good results and catches up at the next successful
    /// look. Required, as GRDB's `ValueObservation` requires `onError`: an error nobody hears is
    /// a silent wrong answer.
    func controller(_ controller: FetchedResultsController<Record>, didFailWith error: any Error)
}

/// Every callback but the failure one is optional: implement those of the change style you use.
extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Record>) {}
    public func controller(_ controller: FetchedResultsController<Record>, didChange section: SectionChange) {}
    public func controller(_ controller: FetchedResultsController<Record>, didChange object: ObjectChange) {}
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Record>) {}
    public func controller(
        _ controller: FetchedResultsController<Record>, didChangeContentWith snapshot: ResultsSnapshot
    ) {
        controller.noteDefaultCallback(.snapshot)
    }
    public func controller(
        _ controller: FetchedResultsController<Record>,
        didChangeContentWith difference: CollectionDifference<Int64>
    ) {
        controller.noteDefaultCallback(.difference)
    }
    public func controller(
        _ controller: FetchedResultsController<Record>, didChangeConnectionState state: ConnectionState
    ) {}
}

/// The callback styles a delegate may implement besides the per-change callbacks, which cost
/// nothing when not implemented; these cost O(n) (the snapshot) or O(k) per change set.
enum OptionalCallbackStyle {
    case snapshot, difference
}

/// What a delegate implements of the optional styles: nil until its first change set.
struct DelegateStyles {
    var snapshot: Bool?
    var difference: Bool?
}

/// Hears that a delegate's callback is the protocol's default: the delegate does not implement
/// that style.
protocol DefaultCallbackNoting: AnyObject {
    func noteDefaultCallback(_ style: OptionalCallbackStyle)
}

extension ControllerCore: DefaultCallbackNoting {
    func noteDefaultCallback(_ style: OptionalCallbackStyle) {
        switch style {
        case .snapshot: delegateStyles.snapshot = false
        case .difference: delegateStyles.difference = false
        }
    }
}
