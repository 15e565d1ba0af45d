import FetchedResults
import Foundation
import GRDB

/// A fetched results controller's store on SQLite, through GRDB: the controller's reads, its
/// writes, and what tells it that rows changed.
///
/// ```swift
/// let controller = FetchedResultsController(fetchRequest: request, database: pool, recordType: Team.self)
/// ```
///
/// **How changes are seen.** A transaction observer on the database's writer notes the rows each
/// commit touches (with temporary triggers for what SQLite's hooks do not report: the old id of
/// a re-numbered row, the rows `REPLACE` deletes). Writes from other connections and processes
/// are seen through ``ChangeHistory``, which the tables a controller follows must have: its
/// triggers record every changed row in the writing transaction itself. An app whose only
/// writer is this database writer can do without it, saying so with
/// ``ChangeSource/thisWriterOnly``.
///
/// **What wakes a loop.** For a `DatabasePool` (WAL mode) on Linux, ``wakeDescriptor`` is an
/// inotify descriptor on the `-wal` file, readable after any commit by any process
/// (``StoreChangeSignal``); ``nextLookDeadline`` asks for a short burst of looks after a write
/// (a big commit becomes visible a moment after its last write) and a safety look now and then.
/// Elsewhere the deadline asks for a look every ``pollInterval``.
public final class SQLiteStore: ResultsStore {
    public typealias Row = GRDB.Row
    public typealias SortValues = [DatabaseValue]
    public typealias Position = SQLitePosition
    public typealias Snapshot = Database
    public typealias WriteContext = Database

    /// Whose commits a store follows.
    public enum ChangeSource: Sendable {
        /// Every connection's and every process's, read from the tables' ``ChangeHistory``;
        /// following a table without one throws `FetchedResultsError.changeFeedMissing`.
        case everyConnection
        /// Only the commits of this database writer, which its observer sees: no history is
        /// needed, and a write by any other connection or process (the `sqlite3` shell, a
        /// second program) goes unseen until a refetch.
        case thisWriterOnly
    }

    /// The database the rows come from; its writer is observed for commits.
    public let database: any DatabaseWriter
    /// Whose commits are followed.
    public let changeSource: ChangeSource
    /// How often a loop looks when nothing can wake it (no inotify, no WAL file).
    public var pollInterval = Duration.milliseconds(100)
    /// With a change signal, a look now and then all the same: a signal misses a WAL file that
    /// another program deleted and made anew.
    public var safetyLookInterval = Duration.seconds(5)

    var request = TableFetchRequest(table: "")
    var sectionNameKeyPath: String?
    var predicate = BuiltPredicate()
    /// The key paths across relationships the request uses, resolved by ``prepare(_:sectionNameKeyPath:)``.
    var relationshipKeyPaths: [RelationshipKeyPath] = []
    /// The request's ordered read, made once by ``prepare(_:sectionNameKeyPath:)``.
    var orderedQuery = SQLiteOrderedQuery()
    /// The select of whole rows (see `makeSelectSQL()`), made once by ``prepare(_:sectionNameKeyPath:)``:
    /// every look after a commit reads the touched rows with it.
    private(set) var selectSQL = ""
    /// `selectSQL` for one row by id, and for one row by id that matches the predicate: most
    /// looks read one touched row, and need not build the statement's text each time.
    private(set) var oneRowSQL = "", oneMatchingRowSQL = ""
    /// Column positions of the sort keys in `selectSQL`'s rows, found once per schema.
    var sortKeyIndexes: [Int]?
    /// The names of the table columns in `selectSQL`'s rows, found once per schema: every
    /// column changed for a row that was not loaded.
    var rowColumnNames: Set<String>?
    /// The schema version and the fetched table's columns last seen, to notice schema changes.
    var schemaSeen: (version: Int32, columns: [String])?
    /// The one-row read of the last look after a one-row commit, which tells the next such look
    /// whether the schema may have changed.
    var schemaWitness = SchemaWitness()
    /// The schema version each connection had at its last check, to forget its statements when
    /// it moved.
    private var connectionSchemaVersions = ConnectionSchemaVersions()
    private var observer: CommitObserver?
    let pending = PendingCommits()
    private var signal: StoreChangeSignal?
    private var lastLook = ContinuousClock.now
    /// The writer's connection while the controller follows its own write, which then sees
    /// exactly what this writer committed (see `changes(since:in:)`).
    var writerInUse: Database?
    /// The one row a write through the controller touched, read in its transaction just before
    /// the commit: the look that follows reads it from here, without a read transaction (and
    /// its file locks) of its own. Nil but during that look.
    var readBeforeCommit: (rowID: Int64, read: OneRowRead)?
    /// The next step's read, started ahead on another connection (see
    /// ``readAhead(limit:after:unchangedSince:)``).
    var readingAhead: PendingReadAhead?
    /// The rows of the read ahead before the last, kept for the next one to fill.
    var spareCopiedRows: CopiedSortRows?
    /// How many steps of a progressive fetch took rows read ahead, for a program's statistics.
    public internal(set) var stepsReadAhead = 0

    /// A store reading and following `database`: every connection's commits, or only its own
    /// writer's.
    public init(database: any DatabaseWriter, changeSource: ChangeSource = .everyConnection) {
        self.database = database
        self.changeSource = changeSource
    }

    deinit {
        // Best effort: a failure leaves temporary triggers whose function no longer records.
        if let observer { try? Self.stopObserving(observer, on: database) }
    }

    // MARK: - Preparing and tracking

    /// Text filters join the predicate in every read.
    public var filtersText: Bool { true }

    public func prepare(_ request: TableFetchRequest, sectionNameKeyPath: String?) throws {
        try database.read { db in
            self.request = request
            self.sectionNameKeyPath = sectionNameKeyPath
            // A view has no row id: SQLite reads its `rowid` as NULL (or not at all, by how it was
            // built), and GRDB finds no primary key in it.
            if try db.viewExists(request.table), try !db.tableExists(request.table) {
                throw FetchedResultsError.tableWithoutRowID(table: request.table)
            }
            do {
                _ = try db.makeStatement(sql: "SELECT rowid FROM \(quotedTable) LIMIT 0")
            } catch let error as DatabaseError where error.message?.contains("no such column") == true {
                throw FetchedResultsError.tableWithoutRowID(table: request.table)
            }
            if let column = request.rowIDColumn {
                let names =
                    ["rowid", "oid", "_rowid_"] + [try db.primaryKey(request.table).rowIDColumn].compactMap { $0 }
                guard names.contains(where: { $0.lowercased() == column.lowercased() }) else {
                    throw FetchedResultsError.tableWithoutRowID(table: request.table)
                }
            }
            predicate = try BuiltPredicate(request, db)
            let keyPaths = request.keyPathsAcrossRelationships(sectionNameKeyPath: sectionNameKeyPath)
            relationshipKeyPaths = keyPaths.isEmpty ? [] : try RelationshipKeyPath.resolve(keyPaths, of: request, db)
            // Each sort key as SQLite resolves it (any case, the row id, a hidden column).
            for key in request.sortDescriptors.map(\.key) where !keyPaths.contains(key) {
                do {
                    _ = try db.makeStatement(sql: "SELECT \(key.quotedDatabaseIdentifier) FROM \(quotedTable) LIMIT 0")
                } catch let error as DatabaseError where error.message?.contains("no such column") == true {
                    throw FetchedResultsError.unknownColumn(key: key, table: request.table)
                }
            }
            selectSQL = makeSelectSQL()
            oneRowSQL = selectSQL + " WHERE rowid = ?"
            oneMatchingRowSQL = oneRowSQL + predicate.andSQL
            orderedQuery = makeOrderedQuery()
            forgetReadAhead()
            sortKeyIndexes = nil
            rowColumnNames = nil
            schemaSeen = try currentSchema(db)
        }
    }

    /// Checks that every table the request reads has its ``ChangeHistory`` (unless only this
    /// writer's commits are followed), without which the writes of other connections and
    /// processes would go unseen, then observes the writer.
    ///
    /// - Throws: `FetchedResultsError.changeFeedMissing(table:installation:)`.
    public func startTracking() throws {
        guard observer == nil else { return }
        if changeSource == .everyConnection { try database.read { try requireChangeHistory($0) } }
        if signal == nil, let pool = database as? DatabasePool { signal = StoreChangeSignal(databasePath: pool.path) }
        let relatedTables = Set(relationshipKeyPaths.map(\.relationship.destinationTable))
        let observer = CommitObserver(table: request.table, relatedTables: relatedTables, pending: pending)
        try database.writeWithoutTransaction { db in
            try observer.triggers.install(db)
            db.add(transactionObserver: observer, extent: .observerLifetime)
        }
        _ = pending.take()
        self.observer = observer
    }

    public func stopTracking() {
        forgetReadAhead()
        guard let observer else { return }
        self.observer = nil
        try? Self.stopObserving(observer, on: database)
        _ = pending.take()
    }

    private static func stopObserving(_ observer: CommitObserver, on database: any DatabaseWriter) throws {
        // Reentrant: a controller may be released inside a write.
        try database.unsafeReentrantWrite { db in
            db.remove(transactionObserver: observer)
            try observer.triggers.remove(db)
        }
    }

    // MARK: - Reading and writing

    /// Every read is one snapshot on SQLite (a pool's reader in a deferred transaction).
    public func read<T>(consistent: Bool, _ body: (Database) throws -> T) throws -> T {
        try database.read(body)
    }

    /// Runs `body` in one transaction on the database's writer, then `follow` on the same
    /// connection, before another write can begin: it sees exactly this commit and those before.
    public func write<T>(_ body: (Database) throws -> T, then follow: (Database) throws -> Void) throws -> T {
        try database.writeWithoutTransaction { db in
            var outcome: T?
            var lastRead: (rowID: Int64, read: OneRowRead)?
            try db.inTransaction {
                outcome = try body(db)
                // A read that fails leaves the write as it is: the look after the commit reads again.
                if let rowID = observer?.onlyRowTouchedSoFar, let read = try? oneRow(rowID, matching: true, in: db) {
                    lastRead = (rowID, read)
                }
                return .commit
            }
            guard let value = outcome else { preconditionFailure("a committed transaction ran its body") }
            (writerInUse, readBeforeCommit) = (db, lastRead)
            defer { (writerInUse, readBeforeCommit) = (nil, nil) }
            try follow(db)
            return value
        }
    }

    // MARK: - Waking a loop

    public var wakeDescriptor: Int32? { signal?.fileDescriptor }

    public var nextLookDeadline: ContinuousClock.Instant? {
        guard let signal else { return lastLook + pollInterval }
        if let followUp = signal.followUpTimeout() { return .now + .milliseconds(Int(followUp)) }
        return lastLook + safetyLookInterval
    }

    public func didWake() {
        signal?.drain()
    }

    /// Notes that a look was made now, for the next safety look's deadline.
    func noteLook() { lastLook = .now }

    /// Throws `changeFeedMissing` for the first table the request reads without a history.
    func requireChangeHistory(_ db: Database) throws {
        for table in [request.table] + relationshipKeyPaths.map(\.relationship.destinationTable)
        where try !ChangeHistory.isInstalled(on: table, db) {
            throw FetchedResultsError.changeFeedMissing(
                table: table, installation: "try ChangeHistory.install(on: \"\(table)\", in: db)")
        }
    }

    // MARK: - SQL

    var quotedTable: String { request.table.quotedDatabaseIdentifier }

    /// Every column, then each relationship key path's value under the key path's name, then
    /// the row id last, where no table column can shadow it.
    private func makeSelectSQL() -> String {
        let related = relationshipKeyPaths.map { columnSQL($0.keyPath) + ", " }.joined()
        return "SELECT *, \(related)rowid FROM \(quotedTable)"
    }

    /// The ordered read of the request as now prepared.
    private func makeOrderedQuery() -> SQLiteOrderedQuery {
        let batching = request.fetchBatchSize > 0
        let select =
            batching
            ? "SELECT rowid, " + request.sortDescriptors.map { columnSQL($0.key) }.joined(separator: ", ")
                + " FROM \(quotedTable)"
            : selectSQL
        return SQLiteOrderedQuery(
            descriptors: request.sortDescriptors, select: select, predicateSQL: predicate.sql,
            predicateArguments: predicate.arguments, orderBySQL: request.sqliteOrderBySQL, batching: batching,
            sectioned: sectionNameKeyPath != nil)
    }

    /// A select-list entry for a key: the column, or for a key path across a relationship the
    /// related value named after the key path (which `ORDER BY` then refers to).
    func columnSQL(_ key: String) -> String {
        guard let keyPath = relationshipKeyPaths.first(where: { $0.keyPath == key }) else {
            return key.quotedDatabaseIdentifier
        }
        return keyPath.selectExpression(from: request.table) + " AS " + key.quotedDatabaseIdentifier
    }

    /// The schema version and the fetched table's columns (with the key paths' columns).
    func currentSchema(_ db: Database) throws -> (version: Int32, columns: [String]) {
        // Every look asks: a cached statement (GRDB's schemaVersion() parses it anew), stepped
        // through SQLite's C interface.
        let version = Int32(
            truncatingIfNeeded: try db.cachedStatement(sql: "PRAGMA schema_version").stepFirstInt64() ?? 0)
        // A connection forgets its schema and statements once per version it sees, so that what
        // it reads next (the columns below, a row) is of this version.
        if connectionSchemaVersions.noteMoved(version, on: db) { db.clearSchemaCache() }
        if let schemaSeen, schemaSeen.version == version { return schemaSeen }
        return (version, try db.columns(in: request.table).map(\.name) + relationshipKeyPaths.map(\.keyPath))
    }

    /// Whether the fetched table's columns changed since last seen (another connection altered
    /// it, say): then rows read before and after differ in shape, and only a refetch is exact.
    func schemaChanged(_ db: Database) throws -> Bool {
        let current = try currentSchema(db)
        defer { schemaSeen = current }
        guard let seen = schemaSeen, seen.columns != current.columns else { return false }
        sortKeyIndexes = nil
        rowColumnNames = nil
        return true
    }
}

/// A place in a SQLite store's change history: the last ``ChangeHistory`` sequence number the
/// results include, or nil for a database without a history.
public struct SQLitePosition: Sendable, Equatable {
    /// The sequence number, or nil without a history.
    public var sequence: Int64?

    /// A position at `sequence`.
    public init(sequence: Int64?) {
        self.sequence = sequence
    }
}

extension FetchedResultsController where Record: FetchableRecord {
    /// A controller of `Record`s on SQLite.
    ///
    /// - Parameters:
    ///   - fetchRequest: what to fetch and in which order.
    ///   - database: the pool or queue to read from and whose commits to follow.
    ///   - recordType: the type of the objects, made from each row by its own decoding.
    ///   - sectionNameKeyPath: the key whose values cut the results into sections (the first
    ///     sort descriptor's key), or nil for one section.
    ///   - cacheName: the name of a persistent cache; it needs ``ChangeHistory`` on the table.
    ///   - cacheDirectory: where cache files live; by default `$XDG_CACHE_HOME/FetchedResults`.
    ///   - changeSource: whose commits to follow: every connection's (the tables need
    ///     ``ChangeHistory``), or only `database`'s writer's.
    public convenience init(
        fetchRequest: TableFetchRequest, database: any DatabaseWriter, recordType: Record.Type = Record.self,
        sectionNameKeyPath: (any ColumnNameRepresentable)? = nil, cacheName: String? = nil, cacheDirectory: URL? = nil,
        changeSource: SQLiteStore.ChangeSource = .everyConnection
    ) {
        self.init(
            fetchRequest: fetchRequest, store: SQLiteStore(database: database, changeSource: changeSource),
            sectionNameKeyPath: sectionNameKeyPath, cacheName: cacheName, cacheDirectory: cacheDirectory,
            decode: { try Record(row: $0) })
    }
}

extension FetchedResultsController {
    /// ``FetchedResultsController/write(_:)`` on SQLite: `body` runs in one transaction with
    /// GRDB's `Database`, on the store's writer, and the changes it committed (and anyone's
    /// before it) are delivered before this returns.
    ///
    /// - Throws: the error of `body` or of the commit (nothing was committed then);
    ///   `FetchedResultsError.writeContextMismatch` on a controller of another store.
    @discardableResult
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try write(context: Database.self, body)
    }
}
