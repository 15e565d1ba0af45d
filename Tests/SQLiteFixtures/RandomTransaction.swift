import GRDB
import TestSupport

/// A random transaction run on a connection of this process or in a ``SQLiteShell`` in another
/// process.
extension RandomTransaction {
    public func run(on writer: any DatabaseWriter) throws {
        try writer.writeWithoutTransaction { db in
            try db.inTransaction {
                for statement in statements { try db.execute(sql: statement) }
                return rollback ? .rollback : .commit
            }
        }
    }

    public func run(in shell: SQLiteShell) throws {
        try shell.execute(script(begin: "BEGIN IMMEDIATE"))
    }
}

/// Random writes to the item table: inserts, deletes, updates of the section, sort and plain
/// columns, predicate entry and exit, no-op updates, several rows per transaction, rollbacks,
/// and the changes SQLite's update hook does not report: row ids that change (onto a free id
/// or over another row) and `REPLACE` through the unique `code` column.
///
/// Transactions are SQL text with literal values, so that a shell in another process can run
/// them as well as a connection of this one.
public enum RandomWorkload {
    /// One random transaction over the rows with these ids.
    public static func transaction(itemIDs: [Int64], random: inout SplitMix64) -> RandomTransaction {
        let rollback = Int.random(in: 0..<10, using: &random) == 0
        return ItemWorkload.transaction(itemIDs: itemIDs, rollback: rollback, choices: 13, random: &random) {
            step, choice, id, random in
            switch choice {
            case 10:
                // A new row id: a free one, or another row's (which REPLACE deletes).
                let newID = Bool.random(using: &random) ? step.nextID : step.ids.randomElement(using: &random)!
                step.statements.append("UPDATE OR REPLACE item SET id = \(newID) WHERE id = \(id)")
                step.ids.removeAll { $0 == id || $0 == newID }
                step.ids.append(newID)
                if newID == step.nextID { step.nextID += 1 }
            case 11:
                // Another row holding this code is deleted by REPLACE.
                step.statements.append(
                    "UPDATE OR REPLACE item "
                        + "SET code = \(ItemWorkload.literal(ItemWorkload.codes.randomElement(using: &random)!)) "
                        + "WHERE id = \(id)")
            case 12:
                let values = [
                    String(step.nextID), ItemWorkload.literal(ItemWorkload.groups.randomElement(using: &random)!),
                    String(Int.random(in: 0...5, using: &random)),
                    ItemWorkload.literal(ItemWorkload.names.randomElement(using: &random)!),
                    "''", "1", ItemWorkload.literal(ItemWorkload.codes.randomElement(using: &random)!),
                ]
                step.statements.append(
                    "INSERT OR REPLACE INTO item (id, grp, score, name, note, visible, code) "
                        + "VALUES (\(values.joined(separator: ", ")))")
                step.takeNextID()
            default:
                return false
            }
            return true
        }
    }
}

extension RandomWorkload {
    /// Runs one random transaction on `writer`; returns true when it was rolled back.
    public static func transaction(_ writer: any DatabaseWriter, random: inout SplitMix64) throws -> Bool {
        let ids = try writer.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM item") }
        let transaction = transaction(itemIDs: ids, random: &random)
        try transaction.run(on: writer)
        return transaction.rollback
    }
}

/// Commits a test's transactions through the controller (its `write(_:)`, which delivers before
/// it returns), through the controller's database pool (its observer notes the commit for the
/// next look), another connection, or the sqlite3 shell in another process — the last two seen
/// through the change history — or through another connection followed by GRDB's
/// `notifyChanges(in:)` on the pool, the documented remedy for changes a connection cannot see.
public final class TransactionWriter {
    public enum Kind: String, CaseIterable, Sendable {
        case throughController, controllersPool, otherConnection, otherProcess, otherConnectionThenNotify
    }

    public let kind: Kind
    private let pool: DatabasePool
    private let queue: DatabaseQueue?
    private let shell: SQLiteShell?
    /// The controller's `write(_:)`, for ``Kind/throughController``.
    public var controllerWrite: ((_ body: (Database) throws -> Void) throws -> Void)?

    public init(_ kind: Kind, pool: DatabasePool, path: String) throws {
        self.kind = kind
        self.pool = pool
        queue = kind == .otherConnection || kind == .otherConnectionThenNotify ? try DatabaseQueue(path: path) : nil
        shell = kind == .otherProcess ? try SQLiteShell(path: path) : nil
    }

    /// Whether the controller must look to see what this writer commits.
    public var needsPolling: Bool { kind != .throughController }

    /// A transaction the test rolls back through the controller's write.
    private struct RolledBack: Error {}

    public func run(_ transaction: RandomTransaction) throws {
        if let shell { return try transaction.run(in: shell) }
        if kind == .throughController, let controllerWrite {
            do {
                try controllerWrite { db in
                    for statement in transaction.statements { try db.execute(sql: statement) }
                    if transaction.rollback { throw RolledBack() }
                }
            } catch is RolledBack {}
            return
        }
        try transaction.run(on: queue ?? pool)
        if kind == .otherConnectionThenNotify {
            try pool.write { db in try db.notifyChanges(in: DatabaseRegion.fullDatabase) }
        }
    }

    /// Deletes the whole change history, so a controller that has not polled yet must refetch.
    public func pruneHistory() throws {
        try run(RandomTransaction(statements: ["DELETE FROM fetchedresults_history"], rollback: false))
    }
}
