import Foundation
import FetchedResults
import GRDB

extension FetchedResultsController {
    /// The file of this controller's cache, or nil without a cache name.
    public var cacheFile: URL? {
        cacheName.map { ResultsCacheFile.url(name: $0, in: cacheDirectory) }
    }

    /// Writes the cache file, when there is a cache name, the store keeps a change history,
    /// and the results changed since the file was last written or read.
    ///
    /// The file need not be rewritten after every change: at the next launch, the changes
    /// committed since it was written are read from the store's change history and applied on
    /// top of it. Apps call this when idle and when they quit.
    public func saveCache() throws {
        // A progressive fetch's rows up to its boundary are not the results a cache describes.
        guard cacheIsStale, loadBoundary == nil, let url = cacheFile, let state, let generation = lastSeenSequence else { return }
        guard let validity = try database.read({ db in try self.cacheValidity(db) }) else { return }
        try ResultsCacheFile.write(state.keys, validity: validity, generation: String(generation),
                                   sectionNames: state.sectionNames.mapValues(\.name), to: url)
        cacheIsStale = false
    }

    /// Deletes the cache file with this name, or every cache file when `name` is nil (Core
    /// Data's `deleteCache(withName:)`).
    public static func deleteCache(withName name: String?, in directory: URL? = nil) {
        ResultsCacheFile.delete(name: name, in: directory ?? ResultsCacheFile.defaultDirectory)
    }

    /// What a cache file must match to describe this request on this store, or nil when the
    /// store keeps no history (then a cache could not be brought up to date, nor trusted).
    func cacheValidity(_ db: Database) throws -> ResultsCacheFile.Validity? {
        guard try ChangeHistory.isInstalled(db), let identity = try ChangeHistory.storeIdentity(db) else { return nil }
        // Not `PRAGMA schema_version`: it also counts changes that leave the schema as it was
        // (GRDB creates and drops a table whenever it opens a pool).
        var checksum = Checksum()
        let definitions = try String.fetchAll(db, sql: "SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
        for definition in definitions {
            var text = definition + "\n"
            text.withUTF8 { checksum.add(UnsafeRawBufferPointer($0)) }
        }
        return ResultsCacheFile.Validity(fingerprint: fingerprint, schema: String(checksum.value, radix: 16), storeIdentity: identity)
    }

    /// Everything about the request that decides the results, as text.
    var fingerprint: String {
        let request = fetchRequest
        let sorts = request.sortDescriptors.map { "\($0.key) \($0.ascending ? "ASC" : "DESC") \($0.collation.rawValue)" }
        return [
            "table=\(request.table)",
            "predicate=\(predicate.sql)",
            "arguments=\(predicate.arguments)",
            "sort=\(sorts.joined(separator: ", "))",
            "sections=\(sectionNameKeyPath ?? "")",
            "limit=\(request.fetchLimit)",
            "offset=\(request.fetchOffset)",
            "relationships=\(relationshipKeyPaths.map { "\($0.keyPath) \($0.relationship.foreignKey) \($0.relationship.destinationTable)" })",
        ].joined(separator: "; ")
    }

    /// Takes the ordering from a valid cache file and applies the history since it was written;
    /// returns false (and changes nothing) when there is no usable cache.
    func loadFromCache(_ db: Database) throws -> Bool {
        guard delegate != nil, let url = cacheFile, let validity = try cacheValidity(db),
              let (header, cachedKeys) = ResultsCacheFile.read(from: url, expecting: validity) else { return false }
        let latest = try ChangeHistory.latestSequence(db)
        guard let generation = Int64(header.generation), generation <= latest else { return false }
        let changes = try ChangeHistory.changes(to: observedTables, after: generation, db)
        guard !changes.pruned else { return false }
        var touched = changes.rowIDs[fetchRequest.table.lowercased()] ?? []
        touched.formUnion(try rowsReferring(to: changes.rowIDs, db))

        var cachedRecords = RecordCache<Row>(batchSize: fetchRequest.fetchBatchSize)
        if !cachedRecords.isBatching {
            let rows = try Row.fetchAll(db, sql: selectSQL + " \(predicate.whereSQL)", arguments: predicate.arguments)
            cachedRecords.storeBatch(Dictionary(uniqueKeysWithValues: rows.map { ($0[$0.count - 1], $0) }))
        }
        // The names were exact when the file was written; those of sections whose first row
        // changed since are read again below.
        var names: [[UInt8]: KnownSectionName] = [:]
        for (identity, name) in header.sectionNames {
            if let bytes = ResultsCacheFile.bytes(fromHex: identity) { names[bytes] = KnownSectionName(name: name, firstRowID: nil) }
        }
        let cachedState = try makeState(keys: cachedKeys, knownNames: names, recheck: [], loaded: { cachedRecords[$0] }, db)
        let previous = (state, records, loadBoundary)
        (state, records, loadBoundary) = (cachedState, cachedRecords, nil)
        // The cache reflects the store at its generation; what was committed since is applied
        // now, without callbacks, as part of this fetch.
        do {
            if !touched.isEmpty { try apply(touched: touched, db: db, notify: false) }
        } catch {
            (state, records, loadBoundary) = previous
            throw error
        }
        lastSeenSequence = changes.latest
        lastFetchSource = .cache
        cacheIsStale = !touched.isEmpty
        return true
    }
}
