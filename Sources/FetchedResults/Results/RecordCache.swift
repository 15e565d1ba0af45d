/// The full rows a controller holds in memory.
///
/// Without a batch size it holds every fetched row. With one (Core Data's `fetchBatchSize`) it
/// holds at most ``batchesKept`` batches: rows are loaded a batch at a time as they are asked
/// for, and the least recently loaded batch is dropped first. A row that changes is kept
/// current only if it is loaded; otherwise it is kept aside until the next look, then read
/// when next asked for.
package struct RecordCache<Row> {
    /// Batches kept in memory when batching.
    package static var batchesKept: Int { 8 }

    /// 0: every row is held.
    package let batchSize: Int
    package private(set) var rows: [Int64: Row] = [:]
    /// Batching only: for each held row, the serial of the batch that last loaded it.
    private var batchOfRow: [Int64: Int] = [:]
    /// Batching only: the serials and rows of the batches held, oldest first.
    private var batches: [(serial: Int, rowIDs: [Int64])] = []
    private var nextSerial = 0
    /// Batching only: rows the last look that changed rows read whose batches were not held
    /// (see ``apply(touched:fresh:)``); at most a batch.
    private var lastLookRows: [Int64: Row] = [:]

    package init(batchSize: Int) {
        self.batchSize = max(0, batchSize)
    }

    package var isBatching: Bool { batchSize > 0 }

    // Inlined into the controller's generic code, these look up their types' metadata once
    // with the caller's, not again at each call.
    @inline(__always)
    package subscript(rowID: Int64) -> Row? { rows[rowID] ?? lastLookRows[rowID] }

    /// The rows held, kept current or kept aside.
    package var heldRowIDs: Set<Int64> { Set(rows.keys).union(lastLookRows.keys) }

    /// Stores rows read together; when batching, may drop the oldest batch.
    package mutating func storeBatch(_ loaded: [Int64: Row]) {
        for (rowID, row) in loaded {
            rows[rowID] = row
            lastLookRows[rowID] = nil
        }
        guard isBatching else { return }
        let serial = nextSerial
        nextSerial += 1
        for rowID in loaded.keys { batchOfRow[rowID] = serial }
        batches.append((serial, Array(loaded.keys)))
        while batches.count > Self.batchesKept {
            let oldest = batches.removeFirst()
            for rowID in oldest.rowIDs where batchOfRow[rowID] == oldest.serial {
                rows[rowID] = nil
                batchOfRow[rowID] = nil
            }
        }
    }

    /// A transaction's touched rows: those read afresh (`fresh`) are kept current, the others
    /// are gone from the results. When batching, the fresh rows of batches not held are kept
    /// aside until the next look that changes rows, when they are no more than a batch: an
    /// object asked for right after a change set then comes from the snapshot the change set
    /// was made in, not from a later commit, and the batches a view shows stay held.
    package mutating func apply(touched: Set<Int64>, fresh: [Int64: Row]) {
        lastLookRows = [:]
        var unheld: [Int64: Row] = [:]
        for id in touched {
            guard let row = fresh[id] else {
                remove(id)
                continue
            }
            if !isBatching || rows[id] != nil {
                rows[id] = row
            } else {
                unheld[id] = row
            }
        }
        if unheld.count <= batchSize { lastLookRows = unheld }
    }

    /// ``apply(touched:fresh:)`` for one row that still matches, without building sets.
    @inline(__always)
    package mutating func apply(rowID: Int64, fresh row: Row) {
        // Emptied keeping its storage: a win after a win reuses it.
        if !lastLookRows.isEmpty { lastLookRows.removeAll(keepingCapacity: true) }
        if !isBatching || rows[rowID] != nil {
            rows[rowID] = row
        } else {
            lastLookRows[rowID] = row
        }
    }

    package mutating func remove(_ rowID: Int64) {
        rows[rowID] = nil
        batchOfRow[rowID] = nil
        lastLookRows[rowID] = nil
    }

    package mutating func removeAll() {
        rows = [:]
        batchOfRow = [:]
        batches = []
        lastLookRows = [:]
    }
}
