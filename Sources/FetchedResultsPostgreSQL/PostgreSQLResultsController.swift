import FetchedResults
import struct Foundation.URL
#if canImport(Glibc)
import Glibc
#endif

/// Keeps the results of a fetch request on a PostgreSQL table in sections and in order, and
/// tells its delegate how they change — the SQLite `FetchedResultsController`, over a server
/// that many machines write to.
///
/// Without a delegate the controller only holds what ``performFetch()`` fetched. With one it
/// `LISTEN`s for the table's change feed (``PostgreSQLChangeFeed``) and, at each
/// ``processExternalChanges()``, re-reads only the rows committed transactions touched since
/// its last look and places them by binary search: O(k log n), as on SQLite. Call it when the
/// connection's ``socket`` turns readable (a `NOTIFY` arrived) and on an idle tick: a look
/// that finds nothing costs one indexed query, and a notification lost while nobody listened
/// loses no change, since the history is the truth.
///
/// The order is the server's `ORDER BY` byte for byte (see ``PostgreSQLSortDescriptor``), the
/// sections, index paths and change sets are those of the SQLite controller (they share
/// `FetchedResultsCore`), and a section is named after the first sort value of its first row.
///
/// ## Connections
///
/// The controller owns its connection, made from `conninfo` as `psql` would (URI or keywords,
/// `PG*` variables, `~/.pgpass`, `sslmode`). When it breaks, the controller keeps its last
/// results, tells its delegate, and reconnects with back-off at the next looks
/// (``reconnectDeadline`` says when); once back it `LISTEN`s again, reads the history from its
/// position (or refetches when that history was pruned) and delivers one change set.
///
/// ## Threading
///
/// Not `Sendable`: use a controller from one isolation domain. Its callbacks run inside
/// ``processExternalChanges()`` and ``write(_:)``.
///
/// ## Cache
///
/// With a `cacheName`, ``saveCache()`` writes the ordering to a file (the SQLite controller's
/// format) with its feed position; the next ``performFetch()`` with a delegate reads it and then
/// only the rows the feed names since, instead of ordering the whole table on the server.
///
/// ## Relationships
///
/// Sort keys, the section key path and ``PostgreSQLFetchRequest/relationshipKeyPathsForRefreshing``
/// may cross declared to-one relationships (`zone.name`); a change to a related row is a change
/// of the fetched rows that refer to it, found by their foreign key in the same statement that
/// reads the feed. Unlike the SQLite controller's, relationships are not guessed from foreign
/// keys.
open class PostgreSQLResultsController<Record: PostgreSQLRecord>: AnyPostgreSQLResultsController {
    /// What is fetched and in which order.
    public let fetchRequest: PostgreSQLFetchRequest
    /// The column whose value groups rows into sections (the first sort key's), or nil for one
    /// section.
    public let sectionNameKeyPath: String?
    /// How to reach the server, as `psql` reads it.
    public let conninfo: String
    /// Connection parameters used when `conninfo` and the `PG*` variables leave them out (a
    /// `connect_timeout`, keepalives): see ``PostgreSQLConnection/init(_:defaults:)``.
    public var connectionDefaults: [String: String] = [:]
    /// The name of the persistent cache file, or nil for none (see ``saveCache()``).
    public let cacheName: String?
    /// Where cache files live.
    public let cacheDirectory: URL
    /// Which callbacks to compute; per-object changes by default.
    public var changeStyles: ChangeStyles = [.changes]
    /// How the last ``performFetch()`` got its ordering: for tests and benchmarks.
    public internal(set) var lastFetchSource: FetchSource?

    /// Setting a delegate turns change tracking on (at the next fetch or look); nil turns it off.
    public weak var delegate: (any PostgreSQLResultsControllerDelegate)?

    /// Connected, or reconnecting after a loss.
    public internal(set) var connectionState: PostgreSQLConnectionState = .connected

    var connection: PostgreSQLConnection?
    /// Whether `connection` has run `LISTEN`.
    var isListening = false
    var state: ResultsState?
    var records: RecordCache<PostgreSQLRow>
    /// The history position the results are exact at.
    var position: PostgreSQLChangeFeed.Position?
    /// While a progressive fetch loads (``performFetch(firstRows:)``), the last row loaded as
    /// it was read: the results are exactly the matching rows whose keys are not after its key.
    /// Nil once every row is loaded.
    var loadBoundary: PostgreSQLLoadBoundary?
    /// Whether the next step of a progressive fetch should try the cache file first.
    var cacheMayFinishLoad = false
    /// An error left the results behind the server: the next look refetches.
    var needsRefetch = false
    var reconnection = ReconnectionSchedule()
    /// A reconnection under way (see `openConnection()`).
    var attempt: PostgreSQLConnectionAttempt?
    /// The key paths across relationships the request uses, resolved by ``performFetch()``.
    var related: [RelatedKeyPath] = []
    /// Whether the results changed since the cache file was last written or read.
    var cacheIsStale = false

    /// - Parameters:
    ///   - fetchRequest: what to fetch and in which order.
    ///   - conninfo: the server, as `psql` takes it (`postgresql://user@host/db`, `host=… dbname=…`).
    ///   - sectionNameKeyPath: the column whose values cut the results into sections (the first
    ///     sort descriptor's), or nil for one section.
    ///   - cacheName: the name of a persistent cache (Core Data's `cacheName`), used when tracking.
    ///   - cacheDirectory: where cache files live; by default `$XDG_CACHE_HOME/FetchedResults`.
    public init(
        fetchRequest: PostgreSQLFetchRequest, conninfo: String, sectionNameKeyPath: String? = nil,
        cacheName: String? = nil, cacheDirectory: URL? = nil
    ) {
        self.fetchRequest = fetchRequest
        self.conninfo = conninfo
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        self.cacheDirectory = cacheDirectory ?? ResultsCacheFile.defaultDirectory
        self.records = RecordCache(batchSize: fetchRequest.fetchBatchSize)
    }

    /// Whether committed changes are followed.
    var isTracking: Bool { delegate != nil }

    var shape: ResultsShape {
        ResultsShape(fetchOffset: fetchRequest.fetchOffset, fetchLimit: fetchRequest.fetchLimit,
                     isSectioned: sectionNameKeyPath != nil, firstKeyAscending: fetchRequest.sortDescriptors.first?.ascending ?? true)
    }

    /// The connection's descriptor for a `poll` loop (readable when a notification arrived), or
    /// nil while disconnected.
    public var socket: Int32? { connection?.socket }

    /// While reconnecting: when the next look should be made (a `poll` loop's timeout): the next
    /// attempt, or soon while one is under way (each look takes it a step further without
    /// blocking).
    public var reconnectDeadline: ContinuousClock.Instant? {
        guard connection == nil else { return nil }
        return attempt != nil ? ContinuousClock.now + .milliseconds(20) : reconnection.nextAttempt
    }

    // MARK: - Fetching

    /// Connects when needed and fetches the results, with the history position they are exact
    /// at, in one repeatable-read transaction; with a delegate, listens for changes. With a
    /// delegate, a cache name and a valid cache file, the ordering comes from the file and only
    /// what the feed names since is read.
    ///
    /// - Throws: ``PostgreSQLResultsError`` for a request without sort descriptors, whose
    ///   section key path is not its first sort key, or, when tracking, on a table without its
    ///   change feed; ``PostgreSQLError`` when the server cannot be reached or refuses the query.
    open func performFetch() throws {
        try fetch(firstRows: nil)
    }

    /// ``performFetch()``, or with `firstRows` the start of a progressive fetch.
    func fetch(firstRows: Int?) throws {
        try validate()
        let connection = try connect()
        if isTracking { try requireChangeFeed(connection) }
        try connection.transaction(isolation: "REPEATABLE READ READ ONLY") {
            // A progressive fetch shows its first rows before reading a cache file, which its
            // first step then uses for every other row.
            if try firstRows != nil || !isTracking || !loadFromCache(connection) { install(try fetchAll(connection, firstRows: firstRows)) }
            cacheMayFinishLoad = isTracking && loadBoundary != nil && cacheName != nil
        }
    }

    private func validate() throws {
        guard let first = fetchRequest.sortDescriptors.first else {
            throw PostgreSQLResultsError.missingSortDescriptors(table: fetchRequest.table)
        }
        if let sectionNameKeyPath, sectionNameKeyPath != first.column {
            throw PostgreSQLResultsError.sectionKeyPathMismatch(sectionNameKeyPath: sectionNameKeyPath, firstSortKey: first.column)
        }
        related = try fetchRequest.relatedKeyPaths(sectionNameKeyPath: sectionNameKeyPath)
    }

    /// The fetched table and every related table the request reaches.
    var observedTables: [String] {
        var tables = [fetchRequest.table]
        for table in related.map(\.relationship.destinationTable) where !tables.contains(table) { tables.append(table) }
        return tables
    }

    private func requireChangeFeed(_ connection: PostgreSQLConnection) throws {
        for table in observedTables {
            let found = try connection.execute(
                "SELECT count(*) FROM pg_trigger WHERE tgname = $1 AND tgrelid = to_regclass($2)",
                ["fetched_results_" + table + "_rows", PostgreSQLChangeFeed.quoted(table)]).scalar
            guard found == "1" else { throw PostgreSQLResultsError.changeFeedMissing(table: table) }
        }
    }

    /// Everything a fetch produces, installed at once so that a failure leaves the previous
    /// results in place.
    struct Fetched {
        var state: ResultsState
        var records: RecordCache<PostgreSQLRow>
        var position: PostgreSQLChangeFeed.Position
        /// See ``loadBoundary``.
        var loadBoundary: PostgreSQLLoadBoundary?
    }

    func install(_ fetched: Fetched) {
        state = fetched.state
        records = fetched.records
        position = fetched.position
        loadBoundary = fetched.loadBoundary
        needsRefetch = false
        lastFetchSource = .store
        cacheIsStale = true
    }

    /// Fetches the ordering (and, without batching, every row) with one ordered query, read
    /// through a cursor so that memory holds the keys and one batch of rows; with `firstRows`,
    /// only the first rows of the order (a progressive fetch's start). Runs inside a
    /// repeatable-read transaction, whose snapshot is the returned position.
    func fetchAll(_ connection: PostgreSQLConnection, firstRows: Int? = nil) throws -> Fetched {
        let position = try PostgreSQLChangeFeed.currentPosition(in: connection)
        let ordered = try readOrdered(connection, limit: firstRows)
        var records = RecordCache<PostgreSQLRow>(batchSize: fetchRequest.fetchBatchSize)
        records.storeBatch(ordered.loaded)
        let state = try ResultsState(keys: ordered.keys.finish(), shape: shape) { rowID in
            if let name = ordered.startNames[rowID] { return name }
            return try sectionName(ofRow: rowID, loaded: nil, connection)
        }
        let boundary = firstRows.flatMap { ordered.count == $0 ? ordered.last : nil }
        return Fetched(state: state, records: records, position: position, loadBoundary: boundary)
    }

    /// Rows in the request's order, all of them or the first `limit` after `after` (from the
    /// start when nil): ids and keys, without batching the rows themselves, the names of the
    /// rows that start a section (or the window), and the last row read. Rows already in `held`
    /// are left out (`count` counts every row read).
    func readOrdered(
        _ connection: PostgreSQLConnection, limit: Int?, after: PostgreSQLLoadBoundary? = nil, held: OrderedKeys? = nil
    ) throws -> (keys: OrderedKeys.Builder, loaded: [Int64: PostgreSQLRow], startNames: [Int64: String], count: Int,
                 last: PostgreSQLLoadBoundary?) {
        let batching = fetchRequest.fetchBatchSize > 0
        // With batches, the key and sort columns only, read in place; else every column.
        let columns = batching ? fetchRequest.keysOnlySQL(related: related) : fetchRequest.fullRowSQL(related: related)
        var builder = OrderedKeys.Builder()
        var loaded: [Int64: PostgreSQLRow] = [:]
        var startNames: [Int64: String] = [:]
        var key: [UInt8] = []
        let shape = self.shape
        var previousFirst: ArraySlice<UInt8> = after.map { shape.firstComponent(of: $0.key) } ?? []
        var reader: RowReader?
        // Positions in the whole order, which the window's start is counted in.
        var index = after == nil ? 0 : state?.keys.count ?? 0
        var count = 0
        var last: PostgreSQLLoadBoundary?
        let request = fetchRequest
        let parts = after.map { keysetParts(after: $0) } ?? [("", [])]
        for part in parts {
            let remaining = limit.map { $0 - count }
            if let remaining, remaining <= 0 { break }
            let conditions = [fetchRequest.predicate.map { "(\($0))" }, part.sql.isEmpty ? nil : part.sql].compactMap { $0 }
            let whereSQL = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let sql = "SELECT \(columns) FROM \(fetchRequest.fromSQL)\(whereSQL) ORDER BY \(fetchRequest.orderBySQL(related: related))"
            let parameters = fetchRequest.arguments + part.parameters
            let take: (PostgreSQLRawRow) throws -> Void = { row in
                let rowReader = reader ?? RowReader(columns: row.columns, request: request)
                reader = rowReader
                let rowID = rowReader.rowID(row)
                key.removeAll(keepingCapacity: true)
                rowReader.appendKey(row, to: &key)
                count += 1
                if limit != nil { last = PostgreSQLLoadBoundary(key: key, values: rowReader.sortValues(row), rowID: rowID) }
                if let held, held.contains(rowID) { return }
                builder.append(rowID: rowID, key: key)
                if shape.isSectioned {
                    let first = shape.firstComponent(of: key)
                    if index == 0 || index == request.fetchOffset || first != previousFirst { startNames[rowID] = rowReader.sectionName(row) }
                    previousFirst = first
                }
                if !batching { loaded[rowID] = row.fullRow }
                index += 1
            }
            // A step's few thousand rows in one round trip; every row through a cursor, a batch at a time.
            if let remaining {
                try connection.forEachRow(of: sql + " LIMIT \(remaining)", parameters, take)
            } else {
                try connection.forEachRow(throughCursor: sql, parameters, take)
            }
        }
        return (builder, loaded, startNames, count, last)
    }

    /// The rows after `boundary` in the request's order, as SQL conditions whose rows follow one
    /// another, each one range of an index on the sort keys (see `KeysetPlan`); the parameters
    /// follow the request's own.
    func keysetParts(after boundary: PostgreSQLLoadBoundary) -> [(sql: String, parameters: [String?])] {
        let descriptors = fetchRequest.sortDescriptors
        let plan = KeysetPlan.parts(ascending: descriptors.map(\.ascending), boundaryIsNull: boundary.values.map { $0 == nil })
        return plan.map { conditions in
            var parameters: [String?] = []
            let terms = conditions.map { condition -> String in
                func expression(_ key: Int) -> String { fetchRequest.expression(descriptors[key].column, related: related) }
                /// The value as the order compares it, against the boundary's as a parameter.
                func compared(_ key: Int, _ operator: String) -> String {
                    parameters.append(boundary.values[key])
                    let number = fetchRequest.arguments.count + parameters.count
                    switch descriptors[key].type {
                    case .text where descriptors[key].caseInsensitive:
                        return "lower(\(expression(key)) COLLATE \"C\") \(`operator`) lower($\(number)::text COLLATE \"C\")"
                    case .text:
                        return "(\(expression(key)) COLLATE \"C\") \(`operator`) ($\(number)::text COLLATE \"C\")"
                    case .integer, .real, .bytea:
                        return "\(expression(key)) \(`operator`) $\(number)"
                    }
                }
                switch condition {
                case let .equal(key): return compared(key, "=")
                case let .greater(key): return compared(key, ">")
                case let .less(key): return compared(key, "<")
                case let .isNull(key): return "\(expression(key)) IS NULL"
                case let .isNotNull(key): return "\(expression(key)) IS NOT NULL"
                case .rowIDGreater:
                    parameters.append(String(boundary.rowID))
                    return "\(fetchRequest.expression(fetchRequest.keyColumn, related: related)) > $\(fetchRequest.arguments.count + parameters.count)"
                }
            }
            return ("(" + terms.joined(separator: " AND ") + ")", parameters)
        }
    }

    /// The name of the section a row starts: its first sort value ("" for NULL), from the row
    /// when loaded, else from the server.
    func sectionName(ofRow rowID: Int64, loaded: PostgreSQLRow?, _ connection: PostgreSQLConnection) throws -> String {
        let column = fetchRequest.sortDescriptors[0].column
        if let loaded { return loaded[column] ?? "" }
        return try connection.execute(
            "SELECT \(fetchRequest.expression(column, related: related)) FROM \(fetchRequest.fromSQL)\(fetchRequest.rowsAmongSQL(matching: false))",
            fetchRequest.argumentsAmong([rowID], matching: false)).scalar ?? ""
    }

    /// Full rows by id; with `matching`, only those that still match the predicate.
    func readRows(_ rowIDs: some Collection<Int64>, matching: Bool, _ connection: PostgreSQLConnection) throws -> [Int64: PostgreSQLRow] {
        guard !rowIDs.isEmpty else { return [:] }
        let result = try connection.execute(
            "SELECT \(fetchRequest.fullRowSQL(related: related)) FROM \(fetchRequest.fromSQL)\(fetchRequest.rowsAmongSQL(matching: matching))",
            fetchRequest.argumentsAmong(rowIDs, matching: matching))
        let reader = RowReader(columns: result.columns, request: fetchRequest)
        var rows: [Int64: PostgreSQLRow] = [:]
        for values in result.rows { rows[reader.rowID(values)] = PostgreSQLRow(columns: result.columns, values: values) }
        return rows
    }

    /// The sort key of a full row.
    func key(of row: PostgreSQLRow) -> [UInt8] {
        var key: [UInt8] = []
        RowReader(columns: row.columns, request: fetchRequest).appendKey(row.values, to: &key)
        return key
    }

    // MARK: - Access

    /// All fetched objects in order, or nil before ``performFetch()``. With a batch size this
    /// reads every row from the server, and stops the program if that fails; prefer
    /// ``objectIfPresent(at:)``, which throws.
    public var fetchedObjects: [Record]? {
        guard let state else { return nil }
        return (0..<state.count).map { record(atVisible: $0) }
    }

    /// The sections, or nil before ``performFetch()``.
    public var sections: [SectionInfo<Record>]? {
        guard let state else { return nil }
        return state.layout.sections.map { section in
            SectionInfo(name: section.name, indexTitle: sectionIndexTitle(forSectionName: section.name),
                        objects: section.range.map { record(atVisible: $0) })
        }
    }

    /// The number of sections (0 before ``performFetch()``).
    public var numberOfSections: Int { state?.layout.sections.count ?? 0 }

    /// The number of objects in a section.
    public func numberOfObjects(inSection section: Int) -> Int { state?.layout.sections[section].range.count ?? 0 }

    /// The name of a section: the first sort value of its first row, as text ("" for NULL).
    public func sectionName(at section: Int) -> String { state?.layout.sections[section].name ?? "" }

    /// The object at a valid index path; stops the program when its row cannot be read (see
    /// ``objectIfPresent(at:)``).
    public func object(at indexPath: IndexPath) -> Record {
        do {
            guard let record = try objectIfPresent(at: indexPath) else {
                preconditionFailure("the row at \(indexPath) was deleted on the server before it could be read")
            }
            return record
        } catch {
            preconditionFailure("the row at \(indexPath) could not be read: \(error)")
        }
    }

    /// The object at a valid index path, or nil when its row was deleted on the server and the
    /// deletion is not processed yet (possible with a batch size only).
    ///
    /// - Throws: ``PostgreSQLError`` when its batch cannot be read, or `Record`'s decoding error.
    public func objectIfPresent(at indexPath: IndexPath) throws -> Record? {
        guard let position = state?.layout.visiblePosition(of: indexPath) else {
            preconditionFailure("index path \(indexPath) is outside the fetched results")
        }
        return try row(atVisible: position).map { try Record(row: $0) }
    }

    /// The row id of the object at a valid index path.
    public func rowID(at indexPath: IndexPath) -> Int64 {
        guard let rowID = state?.rowID(at: indexPath) else {
            preconditionFailure("index path \(indexPath) is outside the fetched results")
        }
        return rowID
    }

    /// The index path of the object with this row id, or nil when it is not in the results.
    public func indexPath(forRowID rowID: Int64) -> IndexPath? { state?.indexPath(forRowID: rowID) }

    /// The number of full rows held in memory.
    public var loadedRowCount: Int { records.rows.count }

    private func record(atVisible position: Int) -> Record {
        do {
            guard let row = try row(atVisible: position) else {
                preconditionFailure("the row at position \(position) was deleted on the server before it could be read")
            }
            return try Record(row: row)
        } catch {
            preconditionFailure("the row at position \(position) could not be read: \(error)")
        }
    }

    /// The full row at a visible position, reading its batch when needed.
    private func row(atVisible position: Int) throws -> PostgreSQLRow? {
        guard let state else { return nil }
        let rowID = state.rowID(atVisible: position)
        if let row = records[rowID] { return row }
        let loaded = try readRows(state.batch(containing: position, batchSize: records.batchSize), matching: false, try connect())
        records.storeBatch(loaded)
        return loaded[rowID]
    }

    // MARK: - Section index

    /// The index title for a section name: by default its first letter, capitalised.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }

    /// The distinct index titles of the sections, in section order.
    open var sectionIndexTitles: [String] { state?.sectionIndexTitles(sectionIndexTitle(forSectionName:)) ?? [] }

    /// The first section whose index title is `title` (or, failing that, the section at `index`).
    open func section(forSectionIndexTitle title: String, at index: Int) -> Int {
        state?.section(forSectionIndexTitle: title, at: index, sectionIndexTitle(forSectionName:)) ?? 0
    }
}

/// Reads row ids, sort keys and section names from rows of one result, whose columns it
/// locates once.
struct RowReader {
    let keyIndex: Int
    let sortIndexes: [Int]
    let descriptors: [PostgreSQLSortDescriptor]

    init(columns: [String], request: PostgreSQLFetchRequest) {
        keyIndex = columns.firstIndex(of: request.keyColumn) ?? 0
        sortIndexes = request.sortDescriptors.map { columns.firstIndex(of: $0.column) ?? -1 }
        descriptors = request.sortDescriptors
    }

    func rowID(_ values: [String?]) -> Int64 { values[keyIndex].flatMap(Int64.init) ?? 0 }

    func appendKey(_ values: [String?], to key: inout [UInt8]) {
        PostgreSQLSortDescriptor.appendKey(sortIndexes.map { $0 >= 0 ? values[$0] : nil }, rowID: rowID(values),
                                           descriptors: descriptors, to: &key)
    }

    func rowID(_ row: PostgreSQLRawRow) -> Int64 { row.cString(keyIndex).map { Int64(strtoll($0, nil, 10)) } ?? 0 }

    func appendKey(_ row: PostgreSQLRawRow, to key: inout [UInt8]) {
        for (index, descriptor) in zip(sortIndexes, descriptors) {
            let text = index >= 0 ? row.cString(index) : nil
            descriptor.appendValue(text, length: text == nil ? 0 : row.length(index), to: &key)
        }
        SortKey.appendRowID(rowID(row), to: &key)
    }

    func sectionName(_ row: PostgreSQLRawRow) -> String { (sortIndexes[0] >= 0 ? row.text(sortIndexes[0]) : nil) ?? "" }

    /// The row's sort values as the server sent them (nil for NULL).
    func sortValues(_ row: PostgreSQLRawRow) -> [String?] { sortIndexes.map { $0 >= 0 ? row.text($0) : nil } }
}
