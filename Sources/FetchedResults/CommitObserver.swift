import GRDB

/// Collects the row ids a transaction touches in one table, and hands them to the controller
/// once the transaction commits. Rolled-back work is forgotten (GRDB also drops the events of
/// rolled-back savepoints), so no callback ever reports a change that did not happen.
final class CommitObserver: TransactionObserver, @unchecked Sendable {
    private let table: String
    private var touchedRowIDs: Set<Int64> = []
    private let onCommit: (Database, Set<Int64>) -> Void

    init(table: String, onCommit: @escaping (Database, Set<Int64>) -> Void) {
        self.table = table.lowercased()
        self.onCommit = onCommit
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        eventKind.tableName.lowercased() == table
    }

    func databaseDidChange(with event: DatabaseEvent) {
        touchedRowIDs.insert(event.rowID)
    }

    func databaseDidCommit(_ db: Database) {
        guard !touchedRowIDs.isEmpty else { return }
        let rowIDs = touchedRowIDs
        touchedRowIDs = []
        onCommit(db, rowIDs)
    }

    func databaseDidRollback(_ db: Database) {
        touchedRowIDs = []
    }
}
