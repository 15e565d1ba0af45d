import GRDB
import Synchronization

/// Collects the row ids a transaction touches in the fetched table and in the tables of its
/// relationship key paths, and notes them in ``PendingCommits`` once the transaction commits,
/// for the controller's next look. Rolled-back work is forgotten (GRDB also drops the events of
/// rolled-back savepoints), so no callback ever reports a change that did not happen.
///
/// It runs on whichever thread commits, so it never calls the controller: it only adds to the
/// pending commits, behind their lock.
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
    struct HistoryWritten: Sendable {
        var first: Int64
        var last: Int64
        var count: Int64
    }

    /// What one committed transaction touched.
    struct Touched: Sendable {
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
    private let pending: PendingCommits
    let triggers: LocalChangeTriggers

    init(table: String, relatedTables: Set<String>, pending: PendingCommits) {
        self.table = table.lowercased()
        self.relatedTables = Set(relatedTables.map { $0.lowercased() })
        self.pending = pending
        triggers = LocalChangeTriggers(
            name: "fetchedresults_touched_" + String(UInt64.random(in: 0...UInt64.max), radix: 16),
            tables: [table] + relatedTables.filter { $0.lowercased() != table.lowercased() }.sorted())
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        let name = comparableName(eventKind.tableName)
        return name == table || name == ChangeHistory.tableName || relatedTables.contains(name)
    }

    func databaseDidChange(with event: DatabaseEvent) {
        let name = comparableName(event.tableName)
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

    /// A reported table name, lowercased; the fetched table's and the history's names as they
    /// are, without a scan: SQLite reports names as the schema spells them, nearly always as kept
    /// here, and this runs for every statement and every changed row.
    private func comparableName(_ name: String) -> String {
        name == table || name == ChangeHistory.tableName ? name : lowercasedTableName(name)
    }

    func databaseDidChange() {
        touched.unknownChanges = true
    }

    /// The one row of the fetched table the transaction under way has touched, when it touched
    /// only that: no related row, no unknown change, no row only the triggers caught.
    var onlyRowTouchedSoFar: Int64? {
        guard touched.rowIDs.count == 1, touched.relatedRowIDs.isEmpty, !touched.unknownChanges,
            triggers.collected.isEmpty
        else { return nil }
        return touched.rowIDs.first
    }

    func databaseDidCommit(_ db: Database) {
        var committed = touched
        touched = Touched()
        for (name, rowIDs) in triggers.collected.take() {
            if relatedTables.contains(name) { committed.relatedRowIDs[name, default: []].formUnion(rowIDs) }
            if name == table { committed.rowIDs.formUnion(rowIDs) }
        }
        if !committed.isEmpty || committed.historyWritten != nil { pending.add(committed) }
    }

    func databaseDidRollback(_ db: Database) {
        touched = Touched()
        _ = triggers.collected.take()
    }
}

/// The commits an observer saw and the controller has not looked at yet; filled on the
/// committing thread, emptied by the controller's look.
final class PendingCommits: Sendable {
    private let commits = Mutex<[CommitObserver.Touched]>([])

    func add(_ touched: CommitObserver.Touched) {
        commits.withLock { $0.append(touched) }
    }

    func take() -> [CommitObserver.Touched] {
        commits.withLock { commits in
            defer { commits = [] }
            return commits
        }
    }
}
