import FetchedResults
import TerminalUI
import WorldCupModel

/// Binds the standings to a table view: each committed change set becomes one batch
/// update of the view, which then redraws only the rows whose content or position changed.
///
/// The cursor follows an object, not a position: after each batch it goes to wherever the
/// object with `cursorRowID` now is.
final class ResultsTableBinding: FetchedResultsControllerDelegate {
    private unowned let results: FetchedResultsController<Team>
    private let tableView: TableView
    /// The batch being collected, one stored property: each callback is one access to it (a
    /// load step's thousands of callbacks paid the access checks of two).
    private var batch = Batch()
    /// The row id of the object under the cursor.
    var cursorRowID: Int64?
    /// Called when the controller could not follow a commit (it keeps the last standings).
    var reportFailure: (any Error) -> Void = { _ in }
    /// Called after each batch with the rows it changed, for what else shows the results
    /// (counts, highlights, movement marks).
    var didChangeRows: (ChangedRows) -> Void = { _ in }

    init(results: FetchedResultsController<Team>, tableView: TableView) {
        self.results = results
        self.tableView = tableView
    }

    func controllerWillChangeContent(_ controller: FetchedResultsController<Team>) {
        batch.empty()
    }

    func controller(_ controller: FetchedResultsController<Team>, didChange section: SectionChange) {
        batch.add(section)
    }

    func controller(_ controller: FetchedResultsController<Team>, didChange object: ObjectChange) {
        batch.add(object)
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController<Team>) {
        let cursor = cursorRowID.flatMap { results.indexPath(forRowID: $0) }.map(TableIndex.init)
        tableView.performBatchUpdates(batch.updates, cursorAfter: cursor)
        // The cursor's object went: the cursor stays where it was, on a neighbour it now follows.
        if cursor == nil, let index = tableView.cursor {
            cursorRowID = results.rowID(at: IndexPath(row: index.row, section: index.section))
        }
        didChangeRows(batch.rows)
    }

    func controller(_ controller: FetchedResultsController<Team>, didFailWith error: any Error) {
        // A lost connection shows as "reconnecting…" on the status line, not as an error.
        if case .reconnecting = controller.connectionState { return }
        reportFailure(error)
    }
}

extension ResultsTableBinding {
    /// The rows one change set changed, by row id.
    struct ChangedRows {
        /// Every row inserted, moved or updated.
        var changed: [Int64] = []
        /// The rows inserted into sections that were there.
        var inserted: [Int64] = []
        /// The rows moved or updated, with the row each was at before in its section.
        var moved: [(rowID: Int64, fromRow: Int)] = []
        /// The sections inserted, after the change set (their rows are in none of the lists).
        var insertedSections: [Int] = []
    }

    /// One change set as the table view takes it, and the rows it changed.
    private struct Batch {
        var updates = TableUpdates()
        var rows = ChangedRows()

        /// The most rows whose room the lists keep from one batch to the next: a load step's
        /// rows (growing the lists again at every step would be a cost of its own in every
        /// delivery), not an import's million.
        static let keptCapacity = 65_536

        mutating func empty() {
            updates.removeAll(keepingCapacityUpTo: Self.keptCapacity)
            let keeps = rows.changed.capacity <= Self.keptCapacity
            rows.changed.removeAll(keepingCapacity: keeps)
            rows.inserted.removeAll(keepingCapacity: keeps)
            rows.moved = []
            rows.insertedSections = []
        }

        mutating func add(_ section: SectionChange) {
            switch section.type {
            case .insert:
                updates.insertedSections.append(section.index)
                rows.insertedSections.append(section.index)
            case .delete: updates.deletedSections.append(section.index)
            // A renamed section's header is redrawn because its text changed.
            case .move, .update: break
            }
        }

        mutating func add(_ object: ObjectChange) {
            switch object {
            case let .insert(rowID, to):
                rows.changed.append(rowID)
                rows.inserted.append(rowID)
                updates.insertedRows.append(TableIndex(to))
            case let .delete(_, from):
                updates.deletedRows.append(TableIndex(from))
            case let .move(rowID, from, to, _):
                rows.changed.append(rowID)
                rows.moved.append((rowID, from.row))
                updates.movedRows.append((TableIndex(from), TableIndex(to)))
            case let .update(rowID, from, to, _):
                rows.changed.append(rowID)
                rows.moved.append((rowID, from.row))
                updates.reloadedRows.append((TableIndex(from), TableIndex(to)))
            }
        }
    }
}

extension TableIndex {
    /// The table view's place for a controller's index path.
    init(_ indexPath: IndexPath) {
        self.init(section: indexPath.section, row: indexPath.row)
    }
}
