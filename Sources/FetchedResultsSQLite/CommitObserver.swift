import GRDB

/// Collects the row ids a transaction touches in the fetched table and in the tables of its
/// relationship key paths, and hands them to the controller once the transaction commits.
/// Rolled-back work is forgotten (GRDB also drops the events of rolled-back savepoints), so no
/// callback ever reports a change that did not happen.
///
/// Besides the update hook's events it takes the row ids its ``LocalChangeTriggers`` caught
/// (old ids of re-numbered rows, rows deleted by `REPLACE`), and GRDB's
/// `Database.notifyChanges(in:)`, which says that the table changed in some unknown way.
///
/// It also notes the ``ChangeHistory`` sequence numbers the transaction wrote: when they follow
/// the controller's last-seen number directly, no other connection committed in between, and
/// the history need not be read at all.
final class CommitObserver: TransactionObserver {
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
        /// `notifyChanges(in:)` was called: the rows may have changed in ways no event named.
        var unknownChanges = false

        var isEmpty: Bool { rowIDs.isEmpty && relatedRowIDs.isEmpty && !unknownChanges }
    }

    private let table: String
    private let relatedTables: Set<String>
    private var touched = Touched()
    private let onCommit: (Database, Touched) -> Void
    let triggers: LocalChangeTriggers

    init(table: String, relatedTables: Set<String>, onCommit: @escaping (Database, Touched) -> Void) {
        self.table = table.lowercased()
        self.relatedTables = Set(relatedTables.map { $0.lowercased() })
        self.onCommit = onCommit
        triggers = LocalChangeTriggers(
            name: "fetchedresults_touched_" + String(UInt64.random(in: 0...UInt64.max), radix: 16),
            tables: [table] + relatedTables.filter { $0.lowercased() != table.lowercased() }.sorted())
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

    func databaseDidChange() {
        touched.unknownChanges = true
    }

    func databaseDidCommit(_ db: Database) {
        var committed = touched
        touched = Touched()
        for (name, rowIDs) in triggers.collected.take() {
            if relatedTables.contains(name) { committed.relatedRowIDs[name, default: []].formUnion(rowIDs) }
            if name == table { committed.rowIDs.formUnion(rowIDs) }
        }
        // Called for every commit, even one that touched nothing here: a commit may bring back
        // a table after an error, or change its schema.
        onCommit(db, committed)
    }

    func databaseDidRollback(_ db: Database) {
        touched = Touched()
        _ = triggers.collected.take()
    }
}
