import struct Foundation.URL

extension ControllerCore {
    // MARK: - The persistent cache

    /// The file of this controller's cache, or nil without a cache name.
    var cacheFile: URL? {
        cacheName.map { ResultsCacheFile.url(name: $0, in: cacheDirectory) }
    }

    /// Writes the cache file, when there is a cache name and the results changed since the file
    /// was last written or read.
    ///
    /// The file need not be rewritten after every change: at the next launch, the changes
    /// committed since it was written are read from the store's change feed and applied on top
    /// of it. Apps call this when idle and when they quit.
    func saveCache() throws {
        try exclusive("saveCache()") {
            // A progressive fetch's rows up to its boundary are not the results a cache describes,
            // nor are a text filter's: the file keeps the results from before it.
            guard cacheIsStale, loadBoundary == nil, fetchRequest.textFilter == nil, let url = cacheFile, let state,
                let position
            else { return }
            let validity: CacheValidity
            do {
                validity = try store.read(consistent: false) { try cacheValidity($0) }
            } catch  where store.isConnectionLoss(error) {
                noteConnectionState(error: error)
                throw error
            }
            guard let feedPosition = store.feedPosition(of: position) else { return }
            try ResultsCacheFile.write(
                state.keys, validity: validity, feedPosition: feedPosition,
                sectionNames: state.sectionNames.mapValues(\.name), to: url)
            cacheIsStale = false
        }
    }

    /// Deletes the cache file with this name, or every cache file when `name` is nil (Core
    /// Data's `deleteCache(withName:)`).
    static func deleteCache(withName name: String?, in directory: URL? = nil) {
        ResultsCacheFile.delete(name: name, in: directory ?? ResultsCacheFile.defaultDirectory)
    }

    /// What a cache file must match: the request as the controller sees it, and what the store
    /// adds (its predicate, relationships, schema and identity).
    func cacheValidity(_ snapshot: Store.Snapshot) throws -> CacheValidity {
        var validity = try store.cacheValidity(in: snapshot)
        let request = fetchRequest
        let sorts = request.sortDescriptors.map { "\($0.key) \($0.ascending ? "ASC" : "DESC") \($0.collation)" }
        validity.fingerprint = [
            "table=\(request.table)",
            "id=\(request.rowIDColumn ?? "")",
            "sort=\(sorts.joined(separator: ", "))",
            "sections=\(sectionNameKeyPath ?? "")",
            "limit=\(request.fetchLimit)",
            "offset=\(request.fetchOffset)",
            validity.fingerprint,
        ].joined(separator: "; ")
        return validity
    }

    /// Takes the ordering from a valid cache file and applies what the feed names since it was
    /// written; returns false (and changes nothing) when there is no usable cache.
    func loadFromCache(_ snapshot: Store.Snapshot) throws -> Bool {
        guard isTracking, let url = cacheFile, case let validity = try cacheValidity(snapshot),
            let (header, keys) = ResultsCacheFile.read(from: url, expecting: validity)
        else { return false }
        return try install(cached: keys, header: header, snapshot)
    }

    /// Installs the ordering a cache file held, once the store's feed still holds every change
    /// since the file's feed position; applies those changes on top. Returns false (and changes
    /// nothing) when the feed no longer reaches back that far.
    func install(
        cached cachedKeys: OrderedKeys, header: ResultsCacheFile.Header, _ snapshot: Store.Snapshot
    ) throws
        -> Bool
    {
        guard let cachedPosition = store.position(fromFeedPosition: header.feedPosition),
            case let .changed(touched, freshRows, newPosition) = try store.changes(since: cachedPosition, in: snapshot)
        else { return false }

        var cachedRecords = RecordCache<Store.Row>(batchSize: fetchRequest.fetchBatchSize)
        if !cachedRecords.isBatching { cachedRecords.storeBatch(try store.allRows(in: snapshot)) }
        // The names were exact when the file was written; those of sections whose first row
        // changed since are read again when the changes are applied.
        var names: [[UInt8]: KnownSectionName] = [:]
        for (identity, name) in header.sectionNames {
            if let bytes = ResultsCacheFile.bytes(fromHex: identity) {
                names[bytes] = KnownSectionName(name: name, firstRowID: nil)
            }
        }
        let cachedState = try ResultsState(keys: cachedKeys, shape: shape, knownNames: names, recheck: []) { rowID in
            try sectionName(ofRow: rowID, loaded: cachedRecords[rowID], snapshot)
        }
        let previous = (state, records, loadBoundary)
        (state, records, loadBoundary) = (cachedState, cachedRecords, nil)
        // The cache reflects the store at its feed position; what was committed since is applied
        // now, without callbacks, as part of this fetch.
        do {
            if !touched.isEmpty { try apply(touched: touched, fresh: freshRows, snapshot, notify: false) }
        } catch {
            (state, records, loadBoundary) = previous
            throw error
        }
        position = newPosition
        needsRefetch = false
        lastFetchSource = .cache
        cacheIsStale = !touched.isEmpty
        return true
    }
}

/// How the steps of a progressive fetch use the cache file: a step opens it, the next ones read
/// it a part at a time (as many rows as a step would read from the store), and the last one
/// takes every row from it, so that no step waits for the whole file.
enum CacheLoad {
    /// No cache to try: the steps read the store.
    case none
    /// The next step opens the cache file, when there is a usable one.
    case untried
    /// The file is being read.
    case reading(ResultsCacheFile.Reader)

    /// Whether the next step takes every row from the file, read whole.
    var isFinishing: Bool {
        switch self {
        case .none, .untried: false
        case let .reading(reader): reader.isComplete
        }
    }
}
