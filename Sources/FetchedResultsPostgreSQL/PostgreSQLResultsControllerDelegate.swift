import FetchedResults

/// Receives a ``PostgreSQLResultsController``'s changes, once per look that finds committed
/// transactions touching its results; the same callbacks as the SQLite controller's delegate,
/// plus the connection's state. Every method but the failure one has an empty default.
public protocol PostgreSQLResultsControllerDelegate: AnyObject {
    /// A batch begins: call `beginUpdates()` here.
    func controllerWillChangeContent(_ controller: AnyPostgreSQLResultsController)
    /// A section was inserted (new index), deleted (old index) or renamed. Reported before row
    /// changes.
    func controller(_ controller: AnyPostgreSQLResultsController, didChange section: SectionChange)
    /// An object was inserted, deleted, moved or updated.
    func controller(_ controller: AnyPostgreSQLResultsController, didChange object: ObjectChange)
    /// The batch ends: call `endUpdates()` here.
    func controllerDidChangeContent(_ controller: AnyPostgreSQLResultsController)
    /// The whole new state as a snapshot (an alternative to the per-change callbacks).
    func controller(_ controller: AnyPostgreSQLResultsController, didChangeContentWith snapshot: ResultsSnapshot)
    /// The change of the flat, ordered list of row ids (an alternative to the per-change callbacks).
    func controller(_ controller: AnyPostgreSQLResultsController, didChangeContentWith difference: CollectionDifference<Int64>)
    /// The connection was lost or came back. While it is away the controller keeps its last
    /// results and tries again with back-off at each ``PostgreSQLResultsController/processExternalChanges()``.
    func controller(_ controller: AnyPostgreSQLResultsController, didChangeConnectionState state: PostgreSQLConnectionState)
    /// The controller could not follow the server: the connection broke, a read failed, the
    /// table was dropped. It keeps its last good results and catches up at the next successful
    /// look. Required: an error nobody hears is a silent wrong answer.
    func controller(_ controller: AnyPostgreSQLResultsController, didFailWith error: any Error)
}

/// Every callback but the failure one is optional: implement those of the change style you use.
public extension PostgreSQLResultsControllerDelegate {
    func controllerWillChangeContent(_ controller: AnyPostgreSQLResultsController) {}
    func controller(_ controller: AnyPostgreSQLResultsController, didChange section: SectionChange) {}
    func controller(_ controller: AnyPostgreSQLResultsController, didChange object: ObjectChange) {}
    func controllerDidChangeContent(_ controller: AnyPostgreSQLResultsController) {}
    func controller(_ controller: AnyPostgreSQLResultsController, didChangeContentWith snapshot: ResultsSnapshot) {}
    func controller(_ controller: AnyPostgreSQLResultsController, didChangeContentWith difference: CollectionDifference<Int64>) {}
    func controller(_ controller: AnyPostgreSQLResultsController, didChangeConnectionState state: PostgreSQLConnectionState) {}
}

/// The type-erased face of a PostgreSQL controller that delegates receive.
public protocol AnyPostgreSQLResultsController: AnyObject {
    /// What the controller fetches.
    var fetchRequest: PostgreSQLFetchRequest { get }
    /// The column that cuts sections, or nil.
    var sectionNameKeyPath: String? { get }
    /// Whether the controller is connected, or trying to reconnect.
    var connectionState: PostgreSQLConnectionState { get }
}

/// Whether a controller's connection to the server is up.
public enum PostgreSQLConnectionState: Sendable, Equatable {
    /// Connected (and listening, when tracking).
    case connected
    /// The connection broke; the results are the last good ones. `attempts` reconnections
    /// failed so far, the last with `lastError` (libpq's words).
    case reconnecting(attempts: Int, lastError: String)
}

/// Errors of a request the PostgreSQL controller cannot follow, found by `performFetch()`.
public enum PostgreSQLResultsError: Error, CustomStringConvertible, Equatable {
    /// Results have an order only with at least one sort descriptor.
    case missingSortDescriptors(table: String)
    /// Sections are cut by the first sort key: the section key path must be its column.
    case sectionKeyPathMismatch(sectionNameKeyPath: String, firstSortKey: String)
    /// Tracking needs the table's change feed (its triggers), which only the table's owner can
    /// install; a related table needs its own.
    case changeFeedMissing(table: String)
    /// A key path (`zone.name`) whose first part names no relationship of the request.
    case unknownRelationship(keyPath: String, table: String)

    /// What is wrong and what to do, in words.
    public var description: String {
        switch self {
        case let .missingSortDescriptors(table):
            return "the fetch request on \(table) has no sort descriptor: give at least one, so the results have an order"
        case let .sectionKeyPathMismatch(path, first):
            return "sections by \(path) need \(path) as the first sort key, not \(first)"
        case let .unknownRelationship(keyPath, table):
            return "\(keyPath) crosses no relationship of \(table): declare it in the request's relationships"
        case let .changeFeedMissing(table):
            return "\(table) has no change feed: as its owner, call PostgreSQLChangeFeed.install(on: \"\(table)\", …) once"
        }
    }
}
