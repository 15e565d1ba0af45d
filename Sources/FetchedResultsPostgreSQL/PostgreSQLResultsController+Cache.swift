import FetchedResults
import struct Foundation.URL

extension PostgreSQLResultsController {
    /// The file of this controller's cache, or nil without a cache name.
    public var cacheFile: URL? {
        cacheName.map { ResultsCacheFile.url(name: $0, in: cacheDirectory) }
    }

    /// Writes the cache file, when there is a cache name and the results changed since the
    /// file was last written or read. The file need not be rewritten after every change: at
    /// the next launch, what the change feed names since the file's position is applied on top
    /// of it (or, when that history was pruned, the file is not used). Apps call this when idle
    /// and when they quit.
    ///
    /// - Throws: ``PostgreSQLError`` when the server cannot say which database it is, or the
    ///   file's error.
    public func saveCache() throws {
        // A progressive fetch's rows up to its boundary are not the results a cache describes.
        guard cacheIsStale, loadBoundary == nil, let url = cacheFile, let state, let position else { return }
        let validity = try cacheValidity(try connect())
        try ResultsCacheFile.write(state.keys, validity: validity, generation: position.snapshot,
                                   sectionNames: state.sectionNames.mapValues(\.name), to: url)
        cacheIsStale = false
    }

    /// Deletes the cache file with this name, or every cache file when `name` is nil.
    public static func deleteCache(withName name: String?, in directory: URL? = nil) {
        ResultsCacheFile.delete(name: name, in: directory ?? ResultsCacheFile.defaultDirectory)
    }

    /// What a cache file must match to describe this request on this database: the request,
    /// the table's columns and types, and the database (the cluster's system identifier and the
    /// database's oid: another server, or the database dropped and made again, is another store).
    func cacheValidity(_ connection: PostgreSQLConnection) throws -> ResultsCacheFile.Validity {
        let identity = try connection.execute("""
            SELECT (SELECT system_identifier FROM pg_control_system())::text || '/'
                   || (SELECT oid FROM pg_database WHERE datname = current_database())::text
            """).scalar ?? ""
        let columns = try connection.execute("""
            SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum)
            FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped
            """, [fetchRequest.quotedTable]).scalar ?? ""
        return ResultsCacheFile.Validity(fingerprint: fingerprint, schema: columns, storeIdentity: identity)
    }

    /// Everything about the request that decides the results, as text.
    var fingerprint: String {
        let request = fetchRequest
        let sorts = request.sortDescriptors.map(\.orderingSQL)
        return [
            "table=\(request.table)",
            "key=\(request.keyColumn)",
            "predicate=\(request.predicate ?? "")",
            "arguments=\(request.arguments)",
            "sort=\(sorts.joined(separator: ", "))",
            "sections=\(sectionNameKeyPath ?? "")",
            "limit=\(request.fetchLimit)",
            "offset=\(request.fetchOffset)",
            "relationships=\(related.map { "\($0.keyPath) \($0.relationship)" })",
        ].joined(separator: "; ")
    }

    /// Inside the fetch's repeatable-read transaction: takes the ordering from a valid cache
    /// file and applies what the feed names since its position; returns false (and changes
    /// nothing) when there is no usable cache.
    func loadFromCache(_ connection: PostgreSQLConnection) throws -> Bool {
        guard let url = cacheFile,
              let (header, cachedKeys) = ResultsCacheFile.read(from: url, expecting: try cacheValidity(connection)),
              Self.isSnapshot(header.generation) else { return false }
        let read = try PostgreSQLChangeFeed.read(since: PostgreSQLChangeFeed.Position(snapshot: header.generation), in: connection)
        guard !read.isBehindPruning, read.truncatedTables.isDisjoint(with: observedTables) else { return false }

        var cachedRecords = RecordCache<PostgreSQLRow>(batchSize: fetchRequest.fetchBatchSize)
        if !cachedRecords.isBatching {
            var loaded: [Int64: PostgreSQLRow] = [:]
            var reader: RowReader?
            try connection.forEachRow(throughCursor: "SELECT \(fetchRequest.fullRowSQL(related: related)) FROM \(fetchRequest.fromSQL)\(fetchRequest.whereSQL)",
                                      fetchRequest.arguments) { row in
                let rowReader = reader ?? RowReader(columns: row.columns, request: fetchRequest)
                reader = rowReader
                loaded[rowReader.rowID(row)] = row.fullRow
            }
            cachedRecords.storeBatch(loaded)
        }
        // The names were exact when the file was written; those of sections whose first row
        // changed since are read again when the changes are applied.
        var names: [[UInt8]: KnownSectionName] = [:]
        for (identity, name) in header.sectionNames {
            if let bytes = ResultsCacheFile.bytes(fromHex: identity) { names[bytes] = KnownSectionName(name: name, firstRowID: nil) }
        }
        let cachedState = try ResultsState(keys: cachedKeys, shape: shape, knownNames: names, recheck: []) { rowID in
            try sectionName(ofRow: rowID, loaded: cachedRecords[rowID], connection)
        }
        let previous = (state, records, loadBoundary)
        (state, records, loadBoundary) = (cachedState, cachedRecords, nil)
        let touched = (read.rowIDs[fetchRequest.table] ?? []).union(try rowsReferring(to: read.rowIDs, connection))
        do {
            if !touched.isEmpty {
                try apply(touched: touched, fresh: try readRows(touched, matching: true, connection), connection, notify: false)
            }
        } catch {
            (state, records, loadBoundary) = previous
            throw error
        }
        position = read.position
        needsRefetch = false
        lastFetchSource = .cache
        cacheIsStale = !touched.isEmpty
        return true
    }

    /// Whether text has the shape of a server snapshot (`xmin:xmax:xip,…`), so that a damaged
    /// header never reaches the server as one.
    static func isSnapshot(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 3 && !parts[0].isEmpty && !parts[1].isEmpty
            && parts.allSatisfy { $0.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ",") } }
    }
}
