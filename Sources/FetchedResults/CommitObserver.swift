import GRDB

/// Collects the row ids a transaction touches in one table, and hands them to the controller
/// once the transaction commits. Rolled-back work is forgotten (GRDB also drops the events of
/// rolled-back savepoints), so no callback ever reports a change that did not happen.
///
/// It also notes the ``ChangeHistory`` sequence numbers the transaction wrote: when they follow
/// the controller's last-seen number directly, no other connection committed in between, and
/// the history need not be read at all.
final class CommitObserver: TransactionObserver, @unchecked Sendable {
    /// The history sequence numbers one transaction wrote.
    struct HistoryWritten {
        var first: Int64
        var last: Int64
        var count: Int64

        /// Whether the numbers are exactly `after + 1 ... last`, with none missing.
        func directlyFollows(_ after: Int64) -> Bool {
            first == after + 1 && last - first + 1 == count
        }
    }

    private let table: String
    private var touchedRowIDs: Set<Int64> = []
    private var historyWritten: HistoryWritten?
    private let onCommit: (Database, Set<Int64>, HistoryWritten?) -> Void

    init(table: String, onCommit: @escaping (Database, Set<Int64>, HistoryWritten?) -> Void) {
        self.table = table.lowercased()
        self.onCommit = onCommit
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        let name = eventKind.tableName.lowercased()
        return name == table || name == ChangeHistory.tableName
    }

    func databaseDidChange(with event: DatabaseEvent) {
        if event.tableName.lowercased() == table {
            touchedRowIDs.insert(event.rowID)
        } else if event.kind == .insert {
            if var written = historyWritten {
                written.first = min(written.first, event.rowID)
                written.last = max(written.last, event.rowID)
                written.count += 1
                historyWritten = written
            } else {
                historyWritten = HistoryWritten(first: event.rowID, last: event.rowID, count: 1)
            }
        }
    }

    func databaseDidCommit(_ db: Database) {
        let (rowIDs, written) = (touchedRowIDs, historyWritten)
        touchedRowIDs = []
        historyWritten = nil
        guard !rowIDs.isEmpty else { return }
        onCommit(db, rowIDs, written)
    }

    func databaseDidRollback(_ db: Database) {
        touchedRowIDs = []
        historyWritten = nil
    }
}
