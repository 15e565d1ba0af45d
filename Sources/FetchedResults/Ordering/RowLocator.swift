/// Maps row ids to a small number (the chunk that holds the row).
///
/// Row ids are usually dense (1, 2, 3…), so the map is a flat array indexed by row id while the
/// ids stay within a few times their count: 4 bytes a row, built in one pass. Ids spread wider
/// than that switch it to a dictionary, which switches back once enough ids fill the span (a
/// progressive fetch adds ids in sort order: its first thousand are spread over the whole table).
package struct RowLocator {
    private static let absent = UInt32.max
    /// The flat array may hold up to this many slots per id, plus ``flatSlack``: dense enough
    /// that 4 bytes a slot beat the dictionary's ~40 bytes an entry.
    private static let flatSlotsPerID = 4
    /// Slots a small map may waste, so a few scattered ids stay in one array.
    private static let flatSlack = 4096

    private var base: Int64 = 0
    private var slots: [UInt32] = []
    private var sparse: [Int64: UInt32]?
    /// The lowest and highest ids added to the dictionary (removals leave them: an upper bound
    /// on the span, so switching back is never wrong, only later).
    private var sparseLow = Int64.max, sparseHigh = Int64.min
    package private(set) var count = 0

    /// Whether the ids are kept in the flat array (else in the dictionary).
    package var isFlat: Bool { sparse == nil }

    package init() {}

    /// A locator for the rows of `chunks`, each id mapped to its chunk's id, built in one pass.
    package init(chunks: [OrderedKeys.Chunk]) {
        guard let range = Self.idRange(of: chunks) else {
            self.init()
            return
        }
        self.init(expecting: chunks.reduce(0) { $0 + $1.count }, within: range)
        for chunk in chunks { add(chunk) }
    }

    /// The lowest and highest row ids of `chunks`, nil when they hold no row: what
    /// ``init(expecting:within:)`` lays a locator out for.
    package static func idRange(of chunks: [OrderedKeys.Chunk]) -> ClosedRange<Int64>? {
        var low = Int64.max, high = Int64.min
        for chunk in chunks {
            for id in chunk.rowIDs {
                low = min(low, id)
                high = max(high, id)
            }
        }
        return low <= high ? low...high : nil
    }

    /// An empty locator laid out for `count` ids within `range` (flat when they are dense
    /// there), so that ``add(_:)`` can fill it chunk by chunk without growing it: a cache file
    /// read in several steps.
    package init(expecting count: Int, within range: ClosedRange<Int64>) {
        let (span, overflow) = range.upperBound.subtractingReportingOverflow(range.lowerBound)
        if !overflow && Self.isDense(span: span, count: count) {
            base = range.lowerBound
            slots = [UInt32](repeating: Self.absent, count: Int(span) + 1)
        } else {
            var sparse: [Int64: UInt32] = [:]
            sparse.reserveCapacity(count)
            self.sparse = sparse
        }
    }

    /// Maps every row of `chunk` to the chunk's id. Ids outside the range the locator was laid
    /// out for still land, by growing it.
    package mutating func add(_ chunk: OrderedKeys.Chunk) {
        guard sparse == nil else {
            for id in chunk.rowIDs { insert(chunk.id, for: id) }
            return
        }
        var outside: [Int64] = []
        let (base, value) = (base, chunk.id)
        var added = 0
        slots.withUnsafeMutableBufferPointer { slots in
            for id in chunk.rowIDs {
                let (index, overflow) = id.subtractingReportingOverflow(base)
                guard !overflow, index >= 0, index < slots.count else {
                    outside.append(id)
                    continue
                }
                if slots[Int(index)] == Self.absent { added += 1 }
                slots[Int(index)] = value
            }
        }
        count += added
        for id in outside { insert(value, for: id) }
    }

    private static func isDense(span: Int64, count: Int) -> Bool {
        span >= 0 && span < Int64(flatSlotsPerID * count + flatSlack)
    }

    private func slotIndex(_ rowID: Int64) -> Int? {
        let (index, overflow) = rowID.subtractingReportingOverflow(base)
        return !overflow && index >= 0 && index < slots.count ? Int(index) : nil
    }

    package subscript(rowID: Int64) -> UInt32? {
        get {
            if let sparse { return sparse[rowID] }
            guard let index = slotIndex(rowID) else { return nil }
            let value = slots[index]
            return value == Self.absent ? nil : value
        }
        set {
            if let newValue { insert(newValue, for: rowID) } else { remove(rowID) }
        }
    }

    private mutating func insert(_ value: UInt32, for rowID: Int64) {
        if sparse == nil { makeRoom(for: rowID) }
        if sparse != nil {
            if sparse!.updateValue(value, forKey: rowID) == nil { count += 1 }
            sparseLow = min(sparseLow, rowID)
            sparseHigh = max(sparseHigh, rowID)
            // At each doubling (amortised O(1)): back to the flat array if the ids are dense now.
            if count >= Self.flatSlack, count & (count - 1) == 0 { becomeFlatIfDense() }
            return
        }
        let index = Int(rowID - base)
        if slots[index] == Self.absent { count += 1 }
        slots[index] = value
    }

    private mutating func remove(_ rowID: Int64) {
        if sparse != nil {
            if sparse!.removeValue(forKey: rowID) != nil { count -= 1 }
            return
        }
        if let index = slotIndex(rowID), slots[index] != Self.absent {
            slots[index] = Self.absent
            count -= 1
        }
    }

    /// Switches the dictionary back to a flat array when its ids span at most a few times their
    /// count.
    private mutating func becomeFlatIfDense() {
        guard let dictionary = sparse else { return }
        let (span, overflow) = sparseHigh.subtractingReportingOverflow(sparseLow)
        guard !overflow, Self.isDense(span: span, count: count) else { return }
        var flat = [UInt32](repeating: Self.absent, count: Int(span) + 1)
        for (id, value) in dictionary { flat[Int(id - sparseLow)] = value }
        base = sparseLow
        slots = flat
        sparse = nil
    }

    /// Grows the flat array to cover `rowID`, or switches to a dictionary when it would be sparse.
    private mutating func makeRoom(for rowID: Int64) {
        if slots.isEmpty {
            base = rowID
            slots = [Self.absent]
            return
        }
        let low = min(base, rowID), high = max(base + Int64(slots.count) - 1, rowID)
        if low == base && high == base + Int64(slots.count) - 1 { return }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow && Self.isDense(span: span, count: count + 1) else {
            var dictionary: [Int64: UInt32] = [:]
            dictionary.reserveCapacity(count + 1)
            for (index, value) in slots.enumerated() where value != Self.absent {
                dictionary[base + Int64(index)] = value
            }
            sparse = dictionary
            (sparseLow, sparseHigh) = (low, high)
            slots = []
            return
        }
        if low < base {
            slots.insert(contentsOf: repeatElement(Self.absent, count: Int(base - low)), at: 0)
            base = low
        }
        if high > base + Int64(slots.count) - 1 {
            // Only the slots needed: the array's own capacity grows geometrically (appending ids
            // one by one stays amortised O(1)), and capacity never written costs no memory,
            // while slots filled ahead did (2 MB of a million-row load).
            slots.append(contentsOf: repeatElement(Self.absent, count: Int(high - base) + 1 - slots.count))
        }
    }
}
