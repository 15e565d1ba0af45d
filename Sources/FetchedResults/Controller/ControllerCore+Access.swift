extension ControllerCore {
    // MARK: - Access

    /// All fetched objects in order, or nil before the first fetch. With a batch size, this
    /// reads every row from the store.
    ///
    /// - Throws: the store's error when a batch cannot be read, the record's decoding error, or
    ///   ``FetchedResultsError/objectDeleted(rowID:)`` for a row deleted before it was read.
    var fetchedObjects: [Record]? {
        get throws {
            try exclusive("fetchedObjects") {
                guard let state else { return nil }
                return try (0..<state.count).map { try object(atVisible: $0) }
            }
        }
    }

    /// The sections, or nil before the first fetch. Each section's objects are read as
    /// ``fetchedObjects`` reads them.
    var sections: [SectionInfo<Record>]? {
        get throws {
            try exclusive("sections") {
                guard let layout = state?.layout else { return nil }
                return try layout.sections.map { section in
                    SectionInfo(
                        name: section.name, indexTitle: indexTitle(forSectionName: section.name),
                        objects: try section.range.map { try object(atVisible: $0) })
                }
            }
        }
    }

    /// The number of sections (0 before the first fetch).
    var numberOfSections: Int { exclusive("numberOfSections") { state?.layout.sections.count ?? 0 } }

    /// The number of objects in a section.
    func numberOfObjects(inSection section: Int) -> Int {
        exclusive("numberOfObjects(inSection:)") { state?.layout.sections[section].range.count ?? 0 }
    }

    /// The name of a section: the first sort value of its first row, as text ("" for NULL).
    /// Under a case-insensitive collation, rows spelled "kappa" and "Kappa" share a section,
    /// named after whichever comes first in the order; a fresh fetch and the tracked results
    /// always agree on it.
    func sectionName(at section: Int) -> String {
        exclusive("sectionName(at:)") { state?.layout.sections[section].name ?? "" }
    }

    /// The object at an index path, which must be valid, as in Core Data (an index path outside
    /// the results stops the program: it is a mistake in the caller, not a state of the store).
    ///
    /// - Throws: as ``fetchedObjects``.
    func object(at indexPath: IndexPath) throws -> Record {
        try exclusive("object(at:)") {
            let rowID = self.rowID(at: indexPath)
            guard let record = try objectIfPresent(at: indexPath) else {
                throw FetchedResultsError.objectDeleted(rowID: rowID)
            }
            return record
        }
    }

    /// The object at a valid index path, or nil when its row has just been deleted by another
    /// writer (possible with a batch size only, until that change is processed).
    ///
    /// - Throws: the store's error when the row's batch cannot be read, or the record's
    ///   decoding error.
    func objectIfPresent(at indexPath: IndexPath) throws -> Record? {
        try exclusive("objectIfPresent(at:)") {
            guard let position = state?.layout.visiblePosition(of: indexPath) else {
                preconditionFailure("index path \(indexPath) is outside the fetched results")
            }
            return try row(atVisible: position).map(decode)
        }
    }

    /// The objects of a run of rows in one section, in order, with the rows not held read by
    /// one store read (a batch at a time would take one per ``TableFetchRequest/fetchBatchSize``
    /// rows); rows just deleted by another writer are left out. The rows read are not kept: this
    /// is for a reader of many rows at once (a copy of the results), which would otherwise
    /// push out the batches a view is showing.
    ///
    /// - Throws: the store's error when the rows cannot be read, or a record's decoding error.
    func objectsIfPresent(inSection section: Int, rows: Range<Int>) throws -> [Record] {
        try exclusive("objectsIfPresent(inSection:rows:)") { try objects(inSection: section, rows: rows) }
    }

    private func objects(inSection section: Int, rows: Range<Int>) throws -> [Record] {
        guard !rows.isEmpty else { return [] }
        guard let state,
            let start = state.layout.visiblePosition(of: IndexPath(row: rows.lowerBound, section: section)),
            state.layout.visiblePosition(of: IndexPath(row: rows.upperBound - 1, section: section)) != nil
        else {
            preconditionFailure("rows \(rows) of section \(section) are outside the fetched results")
        }
        let rowIDs = (start..<start + rows.count).map(state.rowID(atVisible:))
        let missing = rowIDs.filter { records[$0] == nil }
        let loaded =
            missing.isEmpty
            ? [:] : try store.read(consistent: false) { try store.rows(missing, matching: false, in: $0) }
        return try rowIDs.compactMap { rowID in try (records[rowID] ?? loaded[rowID]).map(decode) }
    }

    /// The row id of the object at a valid index path.
    func rowID(at indexPath: IndexPath) -> Int64 {
        exclusive("rowID(at:)") {
            guard let rowID = state?.rowID(at: indexPath) else {
                preconditionFailure("index path \(indexPath) is outside the fetched results")
            }
            return rowID
        }
    }

    /// The index path of the object with this row id, or nil when it is not in the results.
    func indexPath(forRowID rowID: Int64) -> IndexPath? {
        exclusive("indexPath(forRowID:)") { state?.indexPath(forRowID: rowID) }
    }

    private func object(atVisible position: Int) throws -> Record {
        guard let state else { preconditionFailure("objects are read after a fetch") }
        guard let row = try row(atVisible: position) else {
            throw FetchedResultsError.objectDeleted(rowID: state.rowID(atVisible: position))
        }
        return try decode(row)
    }

    /// The full row at a visible position, reading its batch when needed.
    private func row(atVisible position: Int) throws -> Store.Row? {
        guard let state else { return nil }
        let rowID = state.rowID(atVisible: position)
        if let row = records[rowID] { return row }
        let batch = state.batch(containing: position, batchSize: records.batchSize)
        let loaded = try store.read(consistent: false) { try store.rows(batch, matching: false, in: $0) }
        records.storeBatch(loaded)
        return loaded[rowID]
    }
}
