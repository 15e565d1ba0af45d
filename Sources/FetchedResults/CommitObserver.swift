import GRDB

/// Collects the row ids a transaction touches in the fetched table and in the tables of its
/// relationship key paths, and hands them to the controller once the transaction commits. Rolled-back work is forgotten (GRDB also drops the events of
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

    /// What one committed transaction touched.
    struct Touched {
        /// Row ids of the fetched table.
        var rowIDs: Set<Int64> = []
        /// Row ids of related tables, by lowercased table name.
        var relatedRowIDs: [String: Set<Int64>] = [:]
        var historyWritten: HistoryWritten?

        var isEmpty: Bool { rowIDs.isEmpty && relatedRowIDs.isEmpty }
    }

    private let table: String
    private let relatedTables: Set<String>
    private var touched = Touched()
    private let onCommit: (Database, Touched) -> Void

    init(table: String, relatedTables: Set<String>, onCommit: @escaping (Database, Touched) -> Void) {
        self.table = table.lowercased()
        self.relatedTables = Set(relatedTables.map { $0.lowercased() })
        self.onCommit = onCommit
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        let name = eventKind.tableName.lowercased()
        return name == table || name == ChangeHistory.tableName || relatedTables.contains(name)
    }

    func databaseDidChange(with event: DatabaseEvent) {
        let name = event.tableName.lowercased()
        // A relationship may lead back to the fetched table itself: record the row as both.
        if relatedTables.contains(name) { touched.relatedRowIDs[name, default: []].insert(event.rowID) }
        if name == table {
            touched.rowIDs.insert(event.rowID)
        } else if name == ChangeHistory.tableName, event.kind == .insert {
            if var written = touched.historyWritten {
                written.first = min(written.first, event.rowID)
                written.last = max(written.last, event.rowID)
                written.count += 1
                touched.historyWritten = written
            } else {
                touched.historyWritten = HistoryWritten(first: event.rowID, last: event.rowID, count: 1)
            }
        }
    }

    func databaseDidCommit(_ db: Database) {
        let committed = touched
        touched = Touched()
        guard !committed.isEmpty else { return }
        onCommit(db, committed)
    }

    func databaseDidRollback(_ db: Database) {
        touched = Touched()
    }
}
