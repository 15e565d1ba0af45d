import GRDB

/// Which change callbacks a controller computes and delivers to its delegate.
public struct ChangeStyles: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Per-section and per-object callbacks with index paths (the classic table-view style).
    public static let changes = ChangeStyles(rawValue: 1)
    /// A snapshot of the whole new state (costs O(n) per transaction).
    public static let snapshot = ChangeStyles(rawValue: 2)
    /// A `CollectionDifference` of the flat list of row ids.
    public static let difference = ChangeStyles(rawValue: 4)
}

/// Keeps the results of a fetch request in sections and in order, and tells its delegate how they
/// change with every committed transaction — Core Data's `NSFetchedResultsController`, for SQLite.
///
/// Three tracking modes, as in Core Data: without a delegate the controller only holds what
/// ``performFetch()`` fetched and installs no observer; with a delegate it follows every commit.
///
/// Changes are incremental: a transaction that touches k rows re-reads those k rows (predicate
/// re-checked) and places them by binary search, instead of refetching the whole result.
///
/// A controller is not thread-safe: read it from the thread that writes to the database (its
/// callbacks run there, synchronously, right after each commit).
open class FetchedResultsController<Record: FetchableRecord & Sendable>: AnyFetchedResultsController,
    @unchecked Sendable
{
    public let fetchRequest: TableFetchRequest
    public let sectionNameKeyPath: String?
    /// The name of the persistent section cache. Accepted so that call sites already have
    /// their final shape; the on-disk cache itself is not implemented yet, so this has no effect.
    public let cacheName: String?
    public let database: any DatabaseWriter

    /// Which callbacks to compute; per-object changes by default.
    public var changeStyles: ChangeStyles = [.changes]

    /// Setting a delegate turns change tracking on; `nil` turns it off.
    public weak var delegate: (any FetchedResultsControllerDelegate)? {
        didSet { updateTracking() }
    }

    private var rows: OrderedRows?
    private var layout: ResultsLayout?
    private var observer: CommitObserver?
    /// The last ``ChangeHistory`` sequence number applied; nil when the store keeps no history.
    private var lastSeenSequence: Int64?

    public init(
        fetchRequest: TableFetchRequest,
        database: any DatabaseWriter,
        sectionNameKeyPath: String? = nil,
        cacheName: String? = nil
    ) {
        self.fetchRequest = fetchRequest
        self.database = database
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
    }

    deinit {
        if let observer { database.remove(transactionObserver: observer) }
    }

    // MARK: - Fetching

    /// Fetches the results, and starts tracking changes when there is a delegate.
    ///
    /// - Throws: ``FetchedResultsError`` for a request without sort descriptors or whose first
    ///   sort descriptor does not group like the section key path; database errors.
    open func performFetch() throws {
        try validate()
        if delegate == nil {
            if let observer {
                database.remove(transactionObserver: observer)
                self.observer = nil
            }
            try database.read { db in try self.fetchAll(db) }
        } else {
            try fetchAndObserve()
        }
    }

    private func validate() throws {
        guard let first = fetchRequest.sortDescriptors.first else {
            throw FetchedResultsError.missingSortDescriptors(table: fetchRequest.table)
        }
        if let sectionNameKeyPath, sectionNameKeyPath.lowercased() != first.key.lowercased() {
            throw FetchedResultsError.sectionKeyPathMismatch(sectionNameKeyPath: sectionNameKeyPath, firstSortKey: first.key)
        }
    }

    /// Fetches and installs the observer in one turn of the writer, so no commit falls between.
    private func fetchAndObserve() throws {
        try database.writeWithoutTransaction { db in
            // One read transaction, so the history position matches the fetched rows exactly.
            try db.inTransaction(.deferred) {
                try self.fetchAll(db)
                return .commit
            }
            if self.observer == nil {
                let observer = CommitObserver(table: self.fetchRequest.table) { [weak self] db, rowIDs in
                    self?.applyCommitted(touched: rowIDs, db: db)
                }
                db.add(transactionObserver: observer, extent: .observerLifetime)
                self.observer = observer
            }
        }
    }

    private func updateTracking() {
        guard rows != nil else { return }
        if delegate != nil, observer == nil {
            try? fetchAndObserve()
        } else if delegate == nil, let observer {
            database.remove(transactionObserver: observer)
            self.observer = nil
        }
    }

    private func fetchAll(_ db: Database) throws {
        let fetched = try Row.fetchAll(db, sql: selectSQL + " \(fetchRequest.whereSQL) ORDER BY \(fetchRequest.orderBySQL)",
                                       arguments: StatementArguments(fetchRequest.predicateArguments))
        let ordered = OrderedRows(descriptors: fetchRequest.sortDescriptors, sortedRows: fetched.map(makeFetchedRow))
        rows = ordered
        layout = ResultsLayout(rows: ordered, request: fetchRequest, sectioned: sectionNameKeyPath != nil)
        lastSeenSequence = try ChangeHistory.isInstalled(db) ? ChangeHistory.latestSequence(db) : nil
    }

    // MARK: - Changes from other connections and processes

    /// Applies what other connections and processes committed since the last look, and tells
    /// the delegate; returns whether anything was committed. Cheap when nothing was (one
    /// indexed query), so an app can call it on an idle tick.
    ///
    /// Needs a store with ``ChangeHistory`` installed on the fetched table; without it, changes
    /// made elsewhere are not seen and this returns false.
    @discardableResult
    public func processExternalChanges() throws -> Bool {
        guard delegate != nil, let lastSeen = lastSeenSequence, rows != nil else { return false }
        return try database.read { db in
            guard try ChangeHistory.latestSequence(db) > lastSeen else { return false }
            self.syncFromHistory(touched: [], db: db)
            return true
        }
    }

    /// After a local commit: the rows it touched, plus whatever the history names beyond them.
    private func applyCommitted(touched: Set<Int64>, db: Database) {
        if lastSeenSequence == nil {
            apply(touched: touched, db: db)
        } else {
            syncFromHistory(touched: touched, db: db)
        }
    }

    private func syncFromHistory(touched: Set<Int64>, db: Database) {
        guard let lastSeen = lastSeenSequence else { return }
        do {
            let changes = try ChangeHistory.changes(to: fetchRequest.table, after: lastSeen, db)
            if changes.pruned {
                // The history we had not read yet was pruned: only a full comparison is exact.
                try refetchAndDiff(db)
            } else {
                apply(touched: touched.union(changes.rowIDs), db: db)
            }
            lastSeenSequence = max(lastSeen, changes.latest)
        } catch {
            try? refetchAndDiff(db)
        }
    }

    /// Refetches everything and reports the difference: the fallback when history is missing.
    private func refetchAndDiff(_ db: Database) throws {
        guard let oldRows = rows, let oldLayout = layout else { return try fetchAll(db) }
        try fetchAll(db)
        guard let newRows = rows, let newLayout = layout, let delegate else { return }
        var oldByID: [Int64: (position: Int, row: Row)] = [:]
        for visible in 0..<oldLayout.count {
            let fetched = oldRows.rows[oldLayout.window.lowerBound + visible]
            oldByID[fetched.rowID] = (visible, fetched.row)
        }
        var placements: [CandidatePlacement] = []
        for visible in 0..<newLayout.count {
            let fetched = newRows.rows[newLayout.window.lowerBound + visible]
            let old = oldByID.removeValue(forKey: fetched.rowID)
            placements.append(CandidatePlacement(
                rowID: fetched.rowID, oldPosition: old?.position, newPosition: visible,
                changedColumns: Self.changedColumns(old?.row, fetched.row)))
        }
        for (rowID, old) in oldByID {
            placements.append(CandidatePlacement(rowID: rowID, oldPosition: old.position, newPosition: nil, changedColumns: []))
        }
        let changes = ChangeSetBuilder(oldLayout: oldLayout, newLayout: newLayout, sameLayout: false, placements: placements)
            .build(flatDifference: changeStyles.contains(.difference))
        if !changes.isEmpty { deliver(changes, to: delegate, rows: newRows, layout: newLayout) }
    }

    /// Every column, then the row id last, where no table column can shadow it.
    private var selectSQL: String {
        "SELECT *, rowid FROM \(fetchRequest.table.quotedDatabaseIdentifier)"
    }

    /// Column positions of the sort keys, found once: every fetch selects the same columns.
    private var sortKeyIndexes: [Int]?

    private func makeFetchedRow(_ row: Row) -> FetchedRow {
        let indexes = sortKeyIndexes ?? {
            let names = Array(row.columnNames).map { $0.lowercased() }
            return fetchRequest.sortDescriptors.map { names.firstIndex(of: $0.key.lowercased()) ?? -1 }
        }()
        sortKeyIndexes = indexes
        return FetchedRow(
            rowID: row[row.count - 1],
            sortKey: indexes.map { $0 >= 0 ? row[$0] as DatabaseValue : .null },
            row: row)
    }

    // MARK: - Access

    /// All fetched objects in order, or nil before ``performFetch()``.
    public var fetchedObjects: [Record]? {
        guard let rows, let layout else { return nil }
        return layout.window.map { try! Record(row: rows.rows[$0].row) }
    }

    /// The sections, or nil before ``performFetch()``.
    public var sections: [SectionInfo<Record>]? {
        guard let rows, let layout else { return nil }
        return layout.sections.map { section in
            SectionInfo(
                name: section.name,
                indexTitle: sectionIndexTitle(forSectionName: section.name),
                objects: section.range.map { try! Record(row: rows.rows[layout.window.lowerBound + $0].row) })
        }
    }

    /// The number of sections (0 before ``performFetch()``).
    public var numberOfSections: Int { layout?.sections.count ?? 0 }

    /// The number of objects in a section.
    public func numberOfObjects(inSection section: Int) -> Int {
        layout?.sections[section].range.count ?? 0
    }

    /// The name of a section.
    public func sectionName(at section: Int) -> String {
        layout?.sections[section].name ?? ""
    }

    /// The object at an index path. The index path must be valid, as in Core Data.
    public func object(at indexPath: IndexPath) -> Record {
        try! Record(row: fetchedRow(at: indexPath).row)
    }

    /// The row id of the object at an index path.
    public func rowID(at indexPath: IndexPath) -> Int64 {
        fetchedRow(at: indexPath).rowID
    }

    private func fetchedRow(at indexPath: IndexPath) -> FetchedRow {
        guard let rows, let layout, let position = layout.visiblePosition(of: indexPath) else {
            preconditionFailure("index path \(indexPath) is outside the fetched results")
        }
        return rows.rows[layout.window.lowerBound + position]
    }

    /// The index path of the object with this row id, or nil when it is not in the results.
    public func indexPath(forRowID rowID: Int64) -> IndexPath? {
        guard let rows, let layout, let position = rows.position(of: rowID),
              let visible = layout.visiblePosition(position) else { return nil }
        return layout.indexPath(ofVisible: visible)
    }

    // MARK: - Section index

    /// The index title for a section name: by default its first letter, capitalised.
    /// Override to customise the section index.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }

    /// The distinct index titles of the sections, in section order.
    open var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        return (layout?.sections ?? []).compactMap { sectionIndexTitle(forSectionName: $0.name) }
            .filter { seen.insert($0).inserted }
    }

    /// The section for an index title: the first section whose title it is (or, failing that,
    /// the section at `index`).
    open func section(forSectionIndexTitle title: String, at index: Int) -> Int {
        let sections = layout?.sections ?? []
        return sections.firstIndex { sectionIndexTitle(forSectionName: $0.name) == title }
            ?? min(max(0, index), max(0, sections.count - 1))
    }

    // MARK: - Applying a committed transaction

    private func apply(touched: Set<Int64>, db: Database) {
        guard var rows, let oldLayout = layout else { return }
        // Take the only reference, so that mutating does not copy n rows (copy-on-write).
        self.rows = nil
        let windowed = fetchRequest.fetchLimit > 0 || fetchRequest.fetchOffset > 0
        let fresh: [Int64: FetchedRow]
        do {
            fresh = try reread(touched, db: db)
        } catch {
            // The rows could not be read back (the table was dropped, say): start over.
            try? fetchAll(db)
            return
        }

        var candidates = touched
        if windowed { candidates.formUnion(oldLayout.window.map { rows.rows[$0].rowID }) }
        var oldRows: [Int64: FetchedRow] = [:]
        var oldPositions: [Int64: Int] = [:]
        for id in candidates {
            guard let position = rows.position(of: id) else { continue }
            oldRows[id] = rows.rows[position]
            oldPositions[id] = oldLayout.visiblePosition(position)
        }

        for id in touched where fresh[id] == nil { rows.remove(id) }
        for row in fresh.values { rows.replace(row.rowID, with: row) }
        // When no row entered or left and no first sort value changed (a +1 win, say), every
        // section keeps its range, and the old layout is still exact.
        let sectionsUnchanged = touched.allSatisfy { id in
            guard let before = oldRows[id], let after = fresh[id] else { return oldRows[id] == nil && fresh[id] == nil }
            return before.sortKey[0] == after.sortKey[0]
        }
        let newLayout = sectionsUnchanged
            ? oldLayout
            : ResultsLayout(rows: rows, request: fetchRequest, sectioned: sectionNameKeyPath != nil)
        if windowed { candidates.formUnion(newLayout.window.map { rows.rows[$0].rowID }) }

        let placements = candidates.map { id in
            let newRow = rows.position(of: id)
            return CandidatePlacement(
                rowID: id,
                oldPosition: oldPositions[id],
                newPosition: newRow.flatMap(newLayout.visiblePosition),
                changedColumns: Self.changedColumns(oldRows[id]?.row, fresh[id]?.row ?? newRow.map { rows.rows[$0].row }))
        }
        self.rows = rows
        self.layout = newLayout
        #if DEBUG
        rows._checkInvariants()
        #endif

        let changes = ChangeSetBuilder(
            oldLayout: oldLayout, newLayout: newLayout, sameLayout: sectionsUnchanged, placements: placements)
            .build(flatDifference: changeStyles.contains(.difference))
        guard !changes.isEmpty, let delegate else { return }
        deliver(changes, to: delegate, rows: rows, layout: newLayout)
    }

    private func reread(_ rowIDs: Set<Int64>, db: Database) throws -> [Int64: FetchedRow] {
        var result: [Int64: FetchedRow] = [:]
        let ids = Array(rowIDs)
        let predicate = fetchRequest.predicate.map { " AND (\($0))" } ?? ""
        // Chunks keep the number of SQL parameters under SQLite's limit.
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = ids[start..<min(start + 500, ids.count)]
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let sql = selectSQL + " WHERE rowid IN (\(placeholders))\(predicate)"
            let arguments = StatementArguments(chunk.map(\.databaseValue) + fetchRequest.predicateArguments)
            // Cached: a statement is prepared once per chunk size, not once per commit.
            let statement = try db.cachedStatement(sql: sql)
            for row in try Row.fetchAll(statement, arguments: arguments) {
                let fetched = makeFetchedRow(row)
                result[fetched.rowID] = fetched
            }
        }
        return result
    }

    /// The names of the table columns whose values differ (the trailing row id excluded).
    /// Both rows come from the same SELECT, so columns are compared by position.
    private static func changedColumns(_ old: Row?, _ new: Row?) -> Set<String> {
        guard let old, let new else { return [] }
        var changed: Set<String> = []
        for index in 0..<(new.count - 1) where old[index] as DatabaseValue != new[index] as DatabaseValue {
            changed.insert(Array(new.columnNames)[index])
        }
        return changed
    }

    private func deliver(_ changes: ChangeSetBuilder.Result, to delegate: any FetchedResultsControllerDelegate,
                         rows: OrderedRows, layout: ResultsLayout) {
        if changeStyles.contains(.changes) {
            delegate.controllerWillChangeContent(self)
            for change in changes.sectionChanges { delegate.controller(self, didChange: change) }
            for change in changes.objectChanges { delegate.controller(self, didChange: change) }
            delegate.controllerDidChangeContent(self)
        }
        if changeStyles.contains(.snapshot) {
            let snapshot = ResultsSnapshot(
                sections: layout.sections.map { section in
                    (section.name, section.range.map { rows.rows[layout.window.lowerBound + $0].rowID })
                },
                reloadedRowIDs: changes.reloadedRowIDs)
            delegate.controller(self, didChangeContentWith: snapshot)
        }
        if changeStyles.contains(.difference), let difference = CollectionDifference(changes.flatDifference) {
            delegate.controller(self, didChangeContentWith: difference)
        }
    }
}
