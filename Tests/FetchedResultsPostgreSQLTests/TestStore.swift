import ControllerOracles
import FetchedResultsPostgreSQL
import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

// What differs between the stores for the tests that run once over both: where the database
// is, how another connection or process writes to it, how its change feed is pruned. The
// tests themselves (the randomised oracles, the progressive fetch, the read ahead, the text
// search, relationships, the cache) are written once.

/// A test's database on one store: SQLite's file, with the pool controllers read and follow,
/// or a PostgreSQL database in the throw-away cluster, with another connection of this process
/// to it (the helper).
final class TestStore {
    let kind: StoreKind
    /// SQLite: the pool controllers read and follow, and its file.
    let pool: DatabasePool?
    let path: String
    /// SQLite: whether the tables have a change history, so that controllers follow every
    /// connection's commits (else only the pool's).
    let history: Bool
    /// PostgreSQL: the database, and another connection to it (new after a restart).
    let conninfo: String
    private(set) var helper: PostgreSQLConnection?

    init(pool: DatabasePool, path: String, history: Bool) {
        (kind, self.pool, self.path, self.history, conninfo) = (.sqlite, pool, path, history, "")
    }

    init(conninfo: String, helper: PostgreSQLConnection) {
        (kind, pool, path, history, self.conninfo, self.helper) = (.postgresql, nil, "", true, conninfo, helper)
    }

    /// A controller on the database; on SQLite it follows every connection when the tables have
    /// a change history, else only the pool's writes.
    func controller<Record: FetchableRecord & PostgreSQLRecord>(
        _ request: TableFetchRequest, sectionNameKeyPath: String?, cacheName: String? = nil,
        cacheDirectory: URL? = nil
    ) -> FetchedResultsController<Record> {
        switch kind {
        case .sqlite:
            FetchedResultsController(
                fetchRequest: request, database: pool!, sectionNameKeyPath: sectionNameKeyPath, cacheName: cacheName,
                cacheDirectory: cacheDirectory, changeSource: history ? .everyConnection : .thisWriterOnly)
        case .postgresql:
            FetchedResultsController(
                fetchRequest: request, conninfo: conninfo, sectionNameKeyPath: sectionNameKeyPath,
                cacheName: cacheName, cacheDirectory: cacheDirectory)
        }
    }

    /// Commits one statement outside any controller: on SQLite through the pool (whose observer
    /// a controller on it notes), on PostgreSQL through the helper (whose commit the feed logs).
    func execute(_ sql: String) throws {
        switch kind {
        case .sqlite: try pool!.write { try $0.execute(sql: sql) }
        case .postgresql: try helper!.execute(sql)
        }
    }

    /// Commits a transaction outside any controller, as ``execute(_:)`` does.
    func run(_ transaction: RandomTransaction) throws {
        switch kind {
        case .sqlite: try transaction.run(on: pool!)
        case .postgresql:
            try helper!.execute("BEGIN")
            for statement in transaction.statements { try helper!.execute(statement) }
            try helper!.execute(transaction.rollback ? "ROLLBACK" : "COMMIT")
        }
    }

    /// The first column of a query's rows as ids; `text`, when given, is bound to the query's
    /// one parameter (`?` on SQLite, `$1` on PostgreSQL).
    func ids(_ sql: String, binding text: String? = nil) throws -> [Int64] {
        switch kind {
        case .sqlite:
            let arguments = StatementArguments(text.map { [$0] } ?? [])
            return try pool!.read { db in try Int64.fetchAll(db, sql: sql, arguments: arguments) }
        case .postgresql:
            let parameters: [(any PostgreSQLValue)?] = text.map { [$0] } ?? []
            return try helper!.execute(sql, parameters).rows.compactMap { $0[0].flatMap(Int64.init) }
        }
    }

    /// A parameter of ``ids(_:binding:)``'s query, as the store writes it.
    var parameter: String { kind == .sqlite ? "?" : "$1" }

    /// Deletes the change feed, so that a controller that has not looked since must refetch:
    /// all but the last `keeping` changed rows.
    func pruneHistory(keeping: Int = 0) throws {
        switch kind {
        case .sqlite: try pool!.write { try ChangeHistory.prune(keeping: keeping, in: $0) }
        case .postgresql: try PostgreSQLChangeFeed.prune(keeping: keeping, in: helper!)
        }
    }

    /// Connects the helper again, after the server restarted.
    func reconnect() throws {
        helper = try PostgreSQLConnection(conninfo)
    }

    /// How many steps of a progressive fetch took rows the store had read ahead.
    func stepsReadAhead<Record>(of controller: FetchedResultsController<Record>) -> Int {
        switch kind {
        case .sqlite: (controller.store as! SQLiteStore).stepsReadAhead
        case .postgresql: (controller.store as! PostgreSQLStore).stepsReadAhead
        }
    }
}

/// Commits a test's transactions on a ``TestStore`` as a configuration says. On SQLite, a
/// ``TransactionWriter`` does it.
final class StoreWriter {
    enum Kind: String, Sendable {
        /// The controller's own `write(_:)`: changes arrive before it returns.
        case controller
        /// SQLite: the controller's pool, whose observer notes each commit for the next look.
        case controllersPool
        /// Another connection of this process: the controller finds the commit in the change
        /// feed at its next look.
        case otherConnection
        /// The store's shell in another process (`sqlite3`, `psql`), one to three transactions
        /// between two looks.
        case otherProcess
        /// SQLite: another connection, then GRDB's `notifyChanges(in:)` on the controller's
        /// pool (the documented remedy for changes a connection cannot see): a refetch and diff.
        case otherConnectionThenNotify
    }

    let kind: Kind
    private let store: TestStore
    private let sqlite: TransactionWriter?
    /// PostgreSQL: the controller's own write, for ``Kind/controller``.
    private var controllerWrite: ((RandomTransaction) throws -> Void)?

    init(_ kind: Kind, on store: TestStore) throws {
        (self.kind, self.store) = (kind, store)
        switch store.kind {
        case .sqlite:
            let sqliteKind: TransactionWriter.Kind =
                switch kind {
                case .controller: .throughController
                case .controllersPool: .controllersPool
                case .otherConnection: .otherConnection
                case .otherProcess: .otherProcess
                case .otherConnectionThenNotify: .otherConnectionThenNotify
                }
            sqlite = try TransactionWriter(sqliteKind, pool: store.pool!, path: store.path)
        case .postgresql:
            precondition(
                [.controller, .otherConnection, .otherProcess].contains(kind), "no \(kind) writer on PostgreSQL")
            sqlite = nil
        }
    }

    /// Writes through `controller` for ``Kind/controller``.
    func attach<Record>(_ controller: FetchedResultsController<Record>) {
        if let sqlite {
            sqlite.controllerWrite = { body in try controller.write(body) }
            return
        }
        controllerWrite = { transaction in
            do {
                try controller.write { (connection: PostgreSQLConnection) in
                    for statement in transaction.statements { try connection.execute(statement) }
                    if transaction.rollback { throw Rollback() }
                }
            } catch is Rollback {}
        }
    }

    /// A transaction the test rolls back through the controller's write.
    private struct Rollback: Error {}

    /// Whether the controller must look to see what this writer commits.
    var needsLook: Bool { kind != .controller }

    /// Whether the feed may be pruned before a look: the controller reads it then.
    var mayPrune: Bool { kind == .otherConnection || kind == .otherProcess }

    func run(_ transaction: RandomTransaction) throws {
        if let sqlite { return try sqlite.run(transaction) }
        switch kind {
        case .controller:
            try controllerWrite!(transaction)
        case .otherConnection:
            try store.run(transaction)
        default:
            let psql = Process()
            psql.executableURL = URL(fileURLWithPath: try TemporaryCluster.program("psql"))
            psql.arguments = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", store.conninfo, "-c", transaction.script()]
            psql.standardOutput = FileHandle.nullDevice
            try psql.run()
            psql.waitUntilExit()
            try #require(psql.terminationStatus == 0, "psql failed on \(transaction.script())")
        }
    }

    /// Deletes the whole change feed (SQLite: through this writer's own connection).
    func pruneHistory() throws {
        if let sqlite { try sqlite.pruneHistory() } else { try store.pruneHistory() }
    }

    /// One step of a randomised test: commits one transaction (one to three from another
    /// process, so that a look finds several at once); then, when the controller cannot see the
    /// commits itself, prunes the feed every `pruneEvery` steps (0: never) and looks. Returns
    /// whether everything written was rolled back.
    func commitStep(
        _ step: Int, pruneEvery: Int, random: inout SplitMix64,
        transaction: (inout SplitMix64) throws -> RandomTransaction, look: () throws -> Void
    ) throws -> Bool {
        var rolledBack = true
        for _ in 0..<(kind == .otherProcess ? Int.random(in: 1...3, using: &random) : 1) {
            let next = try transaction(&random)
            try run(next)
            rolledBack = rolledBack && next.rollback
        }
        if needsLook {
            if mayPrune, pruneEvery > 0, step % pruneEvery == pruneEvery - 1 { try pruneHistory() }
            try look()
        }
        return rolledBack
    }
}

/// What a controller holds, in the oracle's shape.
func controllerState<Record>(
    _ controller: FetchedResultsController<Record>, id: (Record) -> Int64
) throws -> SectionedState<Record> {
    SectionedState(
        sections: try controller.sections!.map { ($0.name, $0.objects.map(id)) },
        content: Dictionary(uniqueKeysWithValues: try controller.fetchedObjects!.map { (id($0), $0) }))
}

/// The randomised tests' loop: `steps` times, commits a random transaction through `writer`
/// (``StoreWriter/commitStep(_:pruneEvery:random:transaction:look:)``), takes the new state
/// from `oracle`, and checks the controller and its callbacks with ``checkStep``. Returns how
/// many steps changed the results.
func runCheckedSteps<Record: Equatable>(
    _ steps: Int, controller: FetchedResultsController<Record>, recorder: CallbackRecords, writer: StoreWriter,
    pruneEvery: Int, seed: UInt64, random: inout SplitMix64, id: (Record) -> Int64,
    beforeStep: (Int) throws -> Void = { _ in },
    transaction: (inout SplitMix64) throws -> RandomTransaction, oracle: () throws -> SectionedState<Record>
) throws -> Int {
    writer.attach(controller)
    var state = try oracle()
    var stepsWithCallbacks = 0
    for step in 0..<steps {
        recorder.reset()
        try beforeStep(step)
        let rolledBack = try writer.commitStep(
            step, pruneEvery: pruneEvery, random: &random, transaction: transaction,
            look: { try lookUntilConnected(controller) })
        let newState = try oracle()
        if try checkStep(
            recorder, old: state, new: newState, controllerState: controllerState(controller, id: id),
            rolledBack: rolledBack, batched: controller.fetchRequest.fetchBatchSize > 0,
            context: "seed \(seed), step \(step)")
        {
            stepsWithCallbacks += 1
        }
        state = newState
    }
    return stepsWithCallbacks
}
