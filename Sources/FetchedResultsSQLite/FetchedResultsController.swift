import Foundation
import FetchedResults
import GRDB
import Synchronization

/// Keeps the results of a fetch request in sections and in order, and tells its delegate how they
/// change with every committed transaction — Core Data's `NSFetchedResultsController`, for SQLite.
///
/// Three tracking modes, as in Core Data: without a delegate the controller only holds what
/// ``performFetch()`` fetched and installs no observer; with a delegate it follows every commit;
/// with a delegate and a `cacheName` it also keeps its ordering in a file, so that the next
/// launch skips the full fetch (see ``saveCache()``).
///
/// Changes are incremental: a transaction that touches k rows re-reads those k rows (predicate
/// re-checked) and places them by binary search, instead of refetching the whole result.
///
/// ## Threading
///
/// A controller is not `Sendable`: the compiler keeps it in the isolation domain that made it
/// (the main actor, say), so two threads never use it at once — with one exception the
/// compiler cannot see. Its callbacks run inside the write that commits: make the writes to the
/// tracked tables from the controller's own domain with GRDB's synchronous `write`, which
/// blocks until the callbacks are done, or let another connection or process write and call
/// ``processExternalChanges()`` from the controller's domain. An `await pool.write { … }` from
/// elsewhere would run the callbacks on GRDB's writer thread while the controller may be in use:
/// debug builds catch such an overlap and stop with a message.
///
/// ## Errors
///
/// After every commit the controller equals a fresh fetch, or it says why not: an error met
/// while following changes (a failed read, a dropped table) goes to the delegate's
/// ``FetchedResultsControllerDelegate/controller(_:didFailWith:)``, the controller keeps its
/// last good results, and the next commit or ``processExternalChanges()`` refetches and reports
/// the difference.
open class FetchedResultsController<Record: FetchableRecord>: AnyFetchedResultsController {
    /// What is fetched and in which order.
    public let fetchRequest: TableFetchRequest
    /// The column (or to-one key path such as `zone.name`) whose value groups rows into
    /// sections, or nil for one section.
    public let sectionNameKeyPath: String?
    /// The name of the persistent cache file, or nil for none (see ``saveCache()``).
    public let cacheName: String?
    /// Where cache files live.
    public let cacheDirectory: URL
    /// The database the results come from; its writes are observed for changes.
    public let database: any DatabaseWriter

    /// Which callbacks to compute; per-object changes by default.
    public var changeStyles: ChangeStyles = [.changes]

    /// Setting a delegate turns change tracking on; `nil` turns it off (unless a
    /// ``snapshots()`` sequence is being iterated). An error met while turning tracking on goes
    /// to the new delegate's ``FetchedResultsControllerDelegate/controller(_:didFailWith:)``.
    public weak var delegate: (any FetchedResultsControllerDelegate)? {
        didSet { updateTracking() }
    }

    /// How the last ``performFetch()`` got its ordering: for tests and benchmarks.
    public internal(set) var lastFetchSource: FetchSource?

    /// The ordered keys and their sections, nil before ``performFetch()``.
    var state: ResultsState?
    /// While a progressive fetch loads (``performFetch(firstRows:)``), the last row loaded as
    /// it was read: the results are exactly the matching rows whose keys are not after its key.
    /// Nil once every row is loaded.
    var loadBoundary: LoadBoundary?
    /// Whether the next step of a progressive fetch should try the cache file first.
    var cacheMayFinishLoad = false
    var records: RecordCache<Row>
    let encoding: SortKeyEncoding
    /// The key paths across relationships the request uses, resolved by ``performFetch()``.
    var relationshipKeyPaths: [RelationshipKeyPath] = []
    /// The predicate, built by ``performFetch()``.
    var predicate = BuiltPredicate()
    private var observer: CommitObserver?
    /// The last ``ChangeHistory`` sequence number applied; nil when the store keeps no history.
    var lastSeenSequence: Int64?
    /// Whether the results changed since the cache file was last written.
    var cacheIsStale = false
    /// An error left the results behind the store: the next look refetches.
    var needsRefetch = false
    /// The schema version and the fetched table's columns last seen, to notice schema changes.
    var schemaSeen: (version: Int32, columns: [String])?
    /// The connection in use while callbacks run, so that rows they ask for are read on it.
    var databaseInCallback: Database?
    /// Consumers of ``snapshots()`` still iterating.
    var streams: [ChangeStream] = []
    #if DEBUG
    /// Debug builds: catches two threads fetching or applying changes at once.
    let exclusiveAccess = ExclusiveAccess()
    #endif

    /// - Parameters:
    ///   - fetchRequest: what to fetch and in which order.
    ///   - database: the pool or queue to read from and whose commits to follow.
    ///   - sectionNameKeyPath: the key whose values cut the results into sections (it must be
    ///     the first sort descriptor's key), or nil for one section.
    ///   - cacheName: the name of a persistent cache (Core Data's `cacheName`); it needs a store
    ///     with ``ChangeHistory`` installed, and is ignored without one.
    ///   - cacheDirectory: where cache files live; by default `$XDG_CACHE_HOME/FetchedResults`.
    public init(
        fetchRequest: TableFetchRequest,
        database: any DatabaseWriter,
        sectionNameKeyPath: String? = nil,
        cacheName: String? = nil,
        cacheDirectory: URL? = nil
    ) {
        self.fetchRequest = fetchRequest
        self.database = database
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        self.cacheDirectory = cacheDirectory ?? ResultsCacheFile.defaultDirectory
        self.records = RecordCache<Row>(batchSize: fetchRequest.fetchBatchSize)
        self.encoding = SortKeyEncoding(descriptors: fetchRequest.sortDescriptors)
    }

    deinit {
        // Best effort: a failure leaves temporary triggers whose function no longer records.
        if let observer { try? Self.stopObserving(observer, on: database) }
    }

    /// Whether commits are followed: a delegate is set or a change sequence is iterated.
    var isTracking: Bool { delegate != nil || !streams.isEmpty }

    var keys: OrderedKeys? { state?.keys }
    var layout: ResultsLayout? { state?.layout }

    /// How the request cuts its rows into visible sections.
    var shape: ResultsShape {
        ResultsShape(fetchOffset: fetchRequest.fetchOffset, fetchLimit: fetchRequest.fetchLimit,
                     isSectioned: sectionNameKeyPath != nil, firstKeyAscending: fetchRequest.sortDescriptors.first?.ascending ?? true)
    }

    // MARK: - Fetching

    /// Fetches the results, and starts tracking changes when there is a delegate. With a cache
    /// name and a valid cache file, the ordering comes from the file and only what changed
    /// since it was written is read from the store.
    ///
    /// - Throws: ``FetchedResultsError`` for a request without sort descriptors, whose first
    ///   sort descriptor does not group like the section key path, with an unsupported
    ///   collation, on a table without row ids, or with a key path that crosses no known
    ///   relationship; database errors.
    open func performFetch() throws {
        #if DEBUG
        exclusiveAccess.enter()
        defer { exclusiveAccess.leave() }
        #endif
        try fetch(firstRows: nil)
    }

    /// ``performFetch()``, or with `firstRows` the start of a progressive fetch.
    func fetch(firstRows: Int?) throws {
        if isTracking {
            try fetchAndObserve(validating: true, firstRows: firstRows)
        } else {
            if let observer {
                self.observer = nil
                try Self.stopObserving(observer, on: database)
            }
            let fetched = try database.read { db in
                try self.validate(db)
                return try self.fetchAll(db, firstRows: firstRows)
            }
            install(fetched)
        }
    }

    private func validate(_ db: Database) throws {
        guard let first = fetchRequest.sortDescriptors.first else {
            throw FetchedResultsError.missingSortDescriptors(table: fetchRequest.table)
        }
        if let sectionNameKeyPath, sectionNameKeyPath.lowercased() != first.key.lowercased() {
            throw FetchedResultsError.sectionKeyPathMismatch(sectionNameKeyPath: sectionNameKeyPath, firstSortKey: first.key)
        }
        if let unsupported = fetchRequest.sortDescriptors.first(where: { !$0.hasSupportedCollation }) {
            throw FetchedResultsError.unsupportedCollation(key: unsupported.key, collation: unsupported.collation.rawValue)
        }
        do {
            _ = try db.makeStatement(sql: "SELECT rowid FROM \(quotedTable) LIMIT 0")
        } catch let error as DatabaseError where error.message?.contains("no such column") == true {
            throw FetchedResultsError.tableWithoutRowID(table: fetchRequest.table)
        }
        predicate = try BuiltPredicate(fetchRequest.predicate, db)
        let keyPaths = fetchRequest.keyPathsAcrossRelationships(sectionNameKeyPath: sectionNameKeyPath)
        relationshipKeyPaths = keyPaths.isEmpty ? [] : try RelationshipKeyPath.resolve(keyPaths, of: fetchRequest, db)
        sortKeyIndexes = nil
    }

    /// Fetches and installs the observer in one turn of the writer, so no commit falls between;
    /// `validating` checks the request first, in the same turn (``performFetch()``); with
    /// `firstRows`, only that many rows are fetched when there is no usable cache.
    func fetchAndObserve(validating: Bool = false, firstRows: Int? = nil) throws {
        try database.writeWithoutTransaction { db in
            if validating { try self.validate(db) }
            // One read transaction, so the history position matches the fetched rows exactly.
            try db.inTransaction(.deferred) {
                // A progressive fetch shows its first rows before reading a cache file, which
                // its first step then uses for every other row.
                if try firstRows != nil || !self.loadFromCache(db) { self.install(try self.fetchAll(db, firstRows: firstRows)) }
                self.cacheMayFinishLoad = self.loadBoundary != nil && self.cacheName != nil
                return .commit
            }
            self.schemaSeen = try self.currentSchema(db)
            if self.observer == nil {
                let relatedTables = Set(self.relationshipKeyPaths.map(\.relationship.destinationTable))
                let observer = CommitObserver(table: self.fetchRequest.table, relatedTables: relatedTables) { [weak self] db, touched in
                    self?.applyCommitted(touched, db: db)
                }
                try observer.triggers.install(db)
                db.add(transactionObserver: observer, extent: .observerLifetime)
                self.observer = observer
            }
        }
        needsRefetch = false
    }

    private static func stopObserving(_ observer: CommitObserver, on database: any DatabaseWriter) throws {
        // Reentrant: a controller may be released inside a write.
        try database.unsafeReentrantWrite { db in
            db.remove(transactionObserver: observer)
            try observer.triggers.remove(db)
        }
    }

    /// Starts or stops following commits after the delegate or the streams changed.
    func updateTracking() {
        guard keys != nil else { return }
        do {
            if isTracking, observer == nil {
                try fetchAndObserve()
            } else if !isTracking, let observer {
                self.observer = nil
                try Self.stopObserving(observer, on: database)
            }
        } catch {
            report(error)
        }
    }

    /// Everything a fetch produces, installed at once so that a failure leaves the previous
    /// results in place.
    struct Fetched {
        var state: ResultsState
        var records: RecordCache<Row>
        var lastSeenSequence: Int64?
        /// See ``loadBoundary``.
        var loadBoundary: LoadBoundary?
    }

    func install(_ fetched: Fetched) {
        state = fetched.state
        records = fetched.records
        lastSeenSequence = fetched.lastSeenSequence
        loadBoundary = fetched.loadBoundary
        lastFetchSource = .store
        cacheIsStale = true
    }

    /// Fetches the ordering (and, without batching, every row) with one ordered query; with
    /// `firstRows`, only the first rows of the order (a progressive fetch's start).
    func fetchAll(_ db: Database, firstRows: Int? = nil) throws -> Fetched {
        let ordered = try readOrdered(db, limit: firstRows)
        let keys = ordered.keys.finish()
        var records = RecordCache<Row>(batchSize: fetchRequest.fetchBatchSize)
        records.storeBatch(ordered.loaded)
        // Every section name read afresh: rows may have changed in ways no event named.
        let state = try makeState(keys: keys, loaded: { records[$0] }, db)
        let sequence = try ChangeHistory.isInstalled(db) ? ChangeHistory.latestSequence(db) : nil
        let boundary = firstRows.flatMap { ordered.count == $0 ? ordered.last : nil }
        return Fetched(state: state, records: records, lastSeenSequence: sequence, loadBoundary: boundary)
    }

    /// Rows in the request's order, all of them or the first `limit` after `after` (all from
    /// the start when nil): their ids and keys, without batching the rows themselves, and the
    /// last row read. Rows already in `held` are left out (`count` counts every row read).
    func readOrdered(
        _ db: Database, limit: Int?, after: LoadBoundary? = nil, held: OrderedKeys? = nil
    ) throws -> (keys: OrderedKeys.Builder, loaded: [Int64: Row], count: Int, last: LoadBoundary?) {
        var builder = OrderedKeys.Builder()
        var loaded: [Int64: Row] = [:]
        var key: [UInt8] = []
        var values: [DatabaseValue] = []
        var count = 0
        var last: (values: [DatabaseValue], rowID: Int64)?
        let keyCount = fetchRequest.sortDescriptors.count
        let batching = fetchRequest.fetchBatchSize > 0
        // Row ids and sort values only when batching: the store can answer from an index.
        let select = batching
            ? "SELECT rowid, " + fetchRequest.sortDescriptors.map { columnSQL($0.key) }.joined(separator: ", ") + " FROM \(quotedTable)"
            : selectSQL
        let parts = after.map(keysetParts(after:)) ?? [("", StatementArguments())]
        for part in parts {
            let remaining = limit.map { $0 - count }
            if let remaining, remaining <= 0 { break }
            let conditions: [String] = (predicate.sql.isEmpty ? [] : ["(\(predicate.sql))"]) + (part.sql.isEmpty ? [] : [part.sql])
            let whereSQL = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let statement = try db.makeStatement(
                sql: select + whereSQL + " ORDER BY \(fetchRequest.orderBySQL)" + (remaining.map { " LIMIT \($0)" } ?? ""))
            let cursor = try Row.fetchCursor(statement, arguments: predicate.arguments + part.arguments)
            while let row = try cursor.next() {
                count += 1
                let rowID: Int64
                values.removeAll(keepingCapacity: true)
                if batching {
                    // Straight from the statement: the row's generic accessors cost more than
                    // the rest of the load (type metadata looked up for every value).
                    let current = statement.sqliteStatement
                    rowID = Int64(sqliteStatement: current, index: 0)
                    for index in 1...keyCount { values.append(DatabaseValue(sqliteStatement: current, index: CInt(index))) }
                } else {
                    rowID = row[row.count - 1]
                    values = sortValues(of: row)
                }
                key.removeAll(keepingCapacity: true)
                encoding.append(values, rowID: rowID, to: &key)
                last = (values, rowID)
                if let held, held.contains(rowID) { continue }
                builder.append(rowID: rowID, key: key)
                if !batching { loaded[rowID] = row.copy() }
            }
        }
        let lastRead = last.map { LoadBoundary(key: encoding.key($0.values, rowID: $0.rowID), values: $0.values, rowID: $0.rowID) }
        return (builder, loaded, count, lastRead)
    }

    /// The rows after `boundary` in the request's order, as SQL conditions whose rows follow one
    /// another, each one range of an index on the sort keys (see `KeysetPlan`).
    func keysetParts(after boundary: LoadBoundary) -> [(sql: String, arguments: StatementArguments)] {
        let descriptors = fetchRequest.sortDescriptors
        let plan = KeysetPlan.parts(ascending: descriptors.map(\.ascending), boundaryIsNull: boundary.values.map(\.isNull))
        return plan.map { conditions in
            var arguments: [DatabaseValue] = []
            let terms = conditions.map { condition -> String in
                func column(_ key: Int) -> String { descriptors[key].key.quotedDatabaseIdentifier }
                func compared(_ key: Int, _ operator: String) -> String {
                    arguments.append(boundary.values[key])
                    return "\(column(key)) \(`operator`) ? COLLATE \(descriptors[key].collation.rawValue)"
                }
                switch condition {
                case let .equal(key): return compared(key, "=")
                case let .greater(key): return compared(key, ">")
                case let .less(key): return compared(key, "<")
                case let .isNull(key): return "\(column(key)) IS NULL"
                case let .isNotNull(key): return "\(column(key)) IS NOT NULL"
                case .rowIDGreater:
                    arguments.append(boundary.rowID.databaseValue)
                    return "rowid > ?"
                }
            }
            return ("(" + terms.joined(separator: " AND ") + ")", StatementArguments(values: arguments))
        }
    }

    /// Cuts `keys` into sections, each named after the first sort value of its first row.
    ///
    /// - Parameters:
    ///   - knownNames, recheck: see ``ResultsState``'s initialiser (default: read every name).
    ///   - loaded: a full row already in memory, if any.
    func makeState(
        keys: OrderedKeys, knownNames: [[UInt8]: KnownSectionName] = [:], recheck: Set<Int64>? = nil, loaded: (Int64) -> Row?,
        _ db: Database
    ) throws -> ResultsState {
        try ResultsState(keys: keys, shape: shape, knownNames: knownNames, recheck: recheck) { rowID in
            try sectionName(ofRow: rowID, loaded: loaded(rowID), db)
        }
    }

    /// The name of the section a row starts: its first sort value as text ("" for NULL).
    func sectionName(ofRow rowID: Int64, loaded: Row?, _ db: Database) throws -> String {
        guard let value = try loaded.map({ sortValues(of: $0)[0] }) ?? readSectionValue(of: rowID, db) else { return "" }
        return Self.sectionName(of: value)
    }

    /// A section value as text: the section's name.
    static func sectionName(of value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return ""
        case let .string(text): return text
        case let .int64(number): return String(number)
        case let .double(number): return String(number)
        case let .blob(data): return String(decoding: data, as: UTF8.self)
        }
    }

    /// The first sort value of a row, read from the store.
    private func readSectionValue(of rowID: Int64, _ db: Database) throws -> DatabaseValue? {
        let column = columnSQL(fetchRequest.sortDescriptors[0].key)
        return try DatabaseValue.fetchOne(db, sql: "SELECT \(column) FROM \(quotedTable) WHERE rowid = ?", arguments: [rowID])
    }

    var quotedTable: String { fetchRequest.table.quotedDatabaseIdentifier }

    /// Every column, then each relationship key path's value under the key path's name, then
    /// the row id last, where no table column can shadow it.
    var selectSQL: String {
        let related = relationshipKeyPaths.map { columnSQL($0.keyPath) + ", " }.joined()
        return "SELECT *, \(related)rowid FROM \(quotedTable)"
    }

    /// A select-list entry for a key: the column, or for a key path across a relationship the
    /// related value named after the key path (which `ORDER BY` then refers to).
    func columnSQL(_ key: String) -> String {
        guard let keyPath = relationshipKeyPaths.first(where: { $0.keyPath == key }) else { return key.quotedDatabaseIdentifier }
        return keyPath.selectExpression(from: fetchRequest.table) + " AS " + key.quotedDatabaseIdentifier
    }

    /// Column positions of the sort keys in `selectSQL`'s rows, found once per schema.
    var sortKeyIndexes: [Int]?

    /// The sort values of a row selected by `selectSQL`.
    func sortValues(of row: Row) -> [DatabaseValue] {
        let indexes = sortKeyIndexes ?? {
            let names = Array(row.columnNames).map { $0.lowercased() }
            return fetchRequest.sortDescriptors.map { names.firstIndex(of: $0.key.lowercased()) ?? -1 }
        }()
        sortKeyIndexes = indexes
        return indexes.map { $0 >= 0 ? row[$0] as DatabaseValue : .null }
    }

    func key(of row: Row) -> [UInt8] {
        encoding.key(sortValues(of: row), rowID: row[row.count - 1])
    }

    /// The schema version and the fetched table's columns (with the key paths' columns).
    func currentSchema(_ db: Database) throws -> (version: Int32, columns: [String]) {
        let version = try db.schemaVersion()
        if let schemaSeen, schemaSeen.version == version { return schemaSeen }
        db.clearSchemaCache()
        return (version, try db.columns(in: fetchRequest.table).map(\.name) + relationshipKeyPaths.map(\.keyPath))
    }

    /// Whether the fetched table's columns changed since last seen (another connection altered
    /// it, say): then rows read before and after differ in shape, and only a refetch is exact.
    func schemaChanged(_ db: Database) throws -> Bool {
        let current = try currentSchema(db)
        defer { schemaSeen = current }
        guard let seen = schemaSeen, seen.columns != current.columns else { return false }
        sortKeyIndexes = nil
        return true
    }

    // MARK: - Access

    /// All fetched objects in order, or nil before ``performFetch()``. With a batch size, this
    /// reads every row from the store, and stops the program if that read fails; prefer
    /// ``objectIfPresent(at:)``, which throws.
    public var fetchedObjects: [Record]? {
        guard let state else { return nil }
        return (0..<state.count).map { record(atVisible: $0) }
    }

    /// The sections, or nil before ``performFetch()``. Each section's objects are read like
    /// ``fetchedObjects``.
    public var sections: [SectionInfo<Record>]? {
        guard let layout else { return nil }
        return layout.sections.map { section in
            SectionInfo(
                name: section.name,
                indexTitle: sectionIndexTitle(forSectionName: section.name),
                objects: section.range.map { record(atVisible: $0) })
        }
    }

    /// The number of sections (0 before ``performFetch()``).
    public var numberOfSections: Int { layout?.sections.count ?? 0 }

    /// The number of objects in a section.
    public func numberOfObjects(inSection section: Int) -> Int {
        layout?.sections[section].range.count ?? 0
    }

    /// The name of a section: the first sort value of its first row, as text ("" for NULL).
    /// Under `NOCASE`, rows spelled "kappa" and "Kappa" share a section, named after whichever
    /// comes first in the order; a fresh fetch and the tracked results always agree on it.
    public func sectionName(at section: Int) -> String {
        layout?.sections[section].name ?? ""
    }

    /// The object at an index path. The index path must be valid, as in Core Data, and its row
    /// must be readable: with a batch size, a row another process deleted and whose deletion
    /// has not been processed yet, or a failed read, stops the program (see
    /// ``objectIfPresent(at:)``, which reports both).
    public func object(at indexPath: IndexPath) -> Record {
        do {
            guard let record = try objectIfPresent(at: indexPath) else {
                preconditionFailure("the row at \(indexPath) was deleted from the store before it could be read")
            }
            return record
        } catch {
            preconditionFailure("the row at \(indexPath) could not be read: \(error)")
        }
    }

    /// The object at a valid index path, or nil when its row has just been deleted by another
    /// connection (possible with a batch size only, until that change is processed).
    ///
    /// - Throws: a database error when the row's batch cannot be read, or a decoding error
    ///   from `Record`.
    public func objectIfPresent(at indexPath: IndexPath) throws -> Record? {
        guard let layout, let position = layout.visiblePosition(of: indexPath) else {
            preconditionFailure("index path \(indexPath) is outside the fetched results")
        }
        return try row(atVisible: position).map { try Record(row: $0) }
    }

    /// The row id of the object at an index path.
    public func rowID(at indexPath: IndexPath) -> Int64 {
        guard let rowID = state?.rowID(at: indexPath) else {
            preconditionFailure("index path \(indexPath) is outside the fetched results")
        }
        return rowID
    }

    /// The index path of the object with this row id, or nil when it is not in the results.
    public func indexPath(forRowID rowID: Int64) -> IndexPath? {
        state?.indexPath(forRowID: rowID)
    }

    /// The number of full rows held in memory: every row without a batch size, at most a few
    /// batches with one.
    public var loadedRowCount: Int { records.rows.count }

    private func record(atVisible position: Int) -> Record {
        do {
            guard let row = try row(atVisible: position) else {
                preconditionFailure("the row at position \(position) was deleted from the store before it could be read")
            }
            return try Record(row: row)
        } catch {
            preconditionFailure("the row at position \(position) could not be read: \(error)")
        }
    }

    /// The full row at a visible position, loading its batch when needed.
    private func row(atVisible position: Int) throws -> Row? {
        guard let state else { return nil }
        let rowID = state.rowID(atVisible: position)
        if let row = records[rowID] { return row }
        let ids = state.batch(containing: position, batchSize: records.batchSize)
        let loaded: [Int64: Row]
        if let db = databaseInCallback {
            loaded = try readRows(ids, db: db, predicate: false)
        } else {
            loaded = try database.read { db in try self.readRows(ids, db: db, predicate: false) }
        }
        records.storeBatch(loaded)
        return loaded[rowID]
    }

    /// Full rows by id; with `predicate`, only those still matching the request.
    func readRows(_ rowIDs: some Collection<Int64>, db: Database, predicate usesPredicate: Bool) throws -> [Int64: Row] {
        var result: [Int64: Row] = [:]
        let ids = Array(rowIDs)
        let condition = usesPredicate ? predicate.andSQL : ""
        // Chunks keep the number of SQL parameters under SQLite's limit.
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = ids[start..<min(start + 500, ids.count)]
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let sql = selectSQL + " WHERE rowid IN (\(placeholders))\(condition)"
            var arguments = StatementArguments(rowIDs: chunk)
            if usesPredicate { arguments += predicate.arguments }
            // Cached: a statement is prepared once per chunk size, not once per commit.
            let statement = try db.cachedStatement(sql: sql)
            for row in try Row.fetchAll(statement, arguments: arguments) {
                result[row[row.count - 1]] = row
            }
        }
        return result
    }

    // MARK: - Section index

    /// The index title for a section name: by default its first letter, capitalised.
    /// Override to customise the section index.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }

    /// The distinct index titles of the sections, in section order.
    open var sectionIndexTitles: [String] {
        state?.sectionIndexTitles(sectionIndexTitle(forSectionName:)) ?? []
    }

    /// The section for an index title: the first section whose title it is (or, failing that,
    /// the section at `index`).
    open func section(forSectionIndexTitle title: String, at index: Int) -> Int {
        state?.section(forSectionIndexTitle: title, at: index, sectionIndexTitle(forSectionName:)) ?? 0
    }
}

#if DEBUG
/// Debug builds: the thread inside a controller's fetch or change application, so that a second
/// thread entering at the same time stops the program with a message instead of racing.
final class ExclusiveAccess: Sendable {
    private let state = Mutex<(thread: ObjectIdentifier?, depth: Int)>((nil, 0))

    func enter() {
        let current = ObjectIdentifier(Thread.current)
        state.withLock { state in
            if let owner = state.thread, owner != current {
                preconditionFailure("""
                    a FetchedResultsController was used by two threads at once: write to the tracked tables \
                    from the controller's own thread or actor with GRDB's synchronous write, or from another \
                    connection and then call processExternalChanges() (see the controller's Threading section)
                    """)
            }
            state = (current, state.depth + 1)
        }
    }

    func leave() {
        state.withLock { state in
            state.depth -= 1
            if state.depth == 0 { state.thread = nil }
        }
    }
}
#endif
