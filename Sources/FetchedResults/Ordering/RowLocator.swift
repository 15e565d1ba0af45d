/// Maps row ids to a small number (the chunk that holds the row).
///
/// Row ids are usually dense (1, 2, 3…), so the map is a flat array indexed by row id while the
/// ids stay within a few times their count, built in one pass. Its slots take 2 bytes while
/// every value fits in 16 bits (a million rows fill about 1,300 chunks), 4 bytes once one does
/// not. Ids spread wider than that switch it to a dictionary, which switches back once enough
/// ids fill the span (a progressive fetch adds ids in sort order: its first thousand are spread
/// over the whole table).
package struct RowLocator {
    /// The flat array may hold up to this many slots per id, plus ``flatSlack``: 32 bytes an
    /// id at 2 bytes a slot, still less than the dictionary's ~40 bytes an entry. A progressive
    /// fetch, whose ids arrive spread over the table, so switches to the array while the
    /// dictionary is small: at a million rows, once 65,536 ids are in, not 262,144, since the
    /// step that switches moves every id in and would otherwise stall a frame.
    private static let flatSlotsPerID = 16
    /// Slots a small map may waste, so a few scattered ids stay in one array.
    private static let flatSlack = 4096

    private var base: Int64 = 0
    /// The flat array's slots while every value is below `UInt16.max` (`UInt16.max`: no row).
    private var narrowSlots: [UInt16] = []
    /// The flat array's slots once a value is not (`UInt32.max`: no row); then `narrowSlots`
    /// is empty.
    private var wideSlots: [UInt32] = []
    private var isWide = false
    private var sparse: [Int64: UInt32]?
    /// The lowest and highest ids added to the dictionary (removals leave them: an upper bound
    /// on the span, so switching back is never wrong, only later).
    private var sparseLow = Int64.max, sparseHigh = Int64.min
    package private(set) var count = 0

    /// Whether the ids are kept in the flat array (else in the dictionary).
    package var isFlat: Bool { sparse == nil }

    /// The bytes each slot of the flat array takes: 2 until a value needs more than 16 bits.
    package var bytesPerSlot: Int { isWide ? 4 : 2 }

    private var slotCount: Int { isWide ? wideSlots.count : narrowSlots.count }

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
            narrowSlots = [UInt16](repeating: .max, count: Int(span) + 1)
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
        if !isWide && chunk.id >= UInt16.max { widen() }
        var outside: [Int64] = []
        count +=
            isWide
            ? Self.fill(&wideSlots, base: base, ids: chunk.rowIDs, with: chunk.id, outside: &outside)
            : Self.fill(&narrowSlots, base: base, ids: chunk.rowIDs, with: UInt16(chunk.id), outside: &outside)
        for id in outside { insert(chunk.id, for: id) }
    }

    /// Sets the slot of each id to `value`, collecting the ids outside the slots; returns the
    /// number of slots that held no row before.
    private static func fill<Slot: FixedWidthInteger>(
        _ slots: inout [Slot], base: Int64, ids: [Int64], with value: Slot, outside: inout [Int64]
    ) -> Int {
        var added = 0
        slots.withUnsafeMutableBufferPointer { slots in
            for id in ids {
                let (index, overflow) = id.subtractingReportingOverflow(base)
                guard !overflow, index >= 0, index < slots.count else {
                    outside.append(id)
                    continue
                }
                if slots[Int(index)] == .max { added += 1 }
                slots[Int(index)] = value
            }
        }
        return added
    }

    private static func isDense(span: Int64, count: Int) -> Bool {
        span >= 0 && span < Int64(flatSlotsPerID * count + flatSlack)
    }

    private func slotIndex(_ rowID: Int64) -> Int? {
        let (index, overflow) = rowID.subtractingReportingOverflow(base)
        return !overflow && index >= 0 && index < slotCount ? Int(index) : nil
    }

    /// The value in a slot, nil for no row.
    private func slot(_ index: Int) -> UInt32? {
        if isWide {
            let value = wideSlots[index]
            return value == .max ? nil : value
        }
        let value = narrowSlots[index]
        return value == .max ? nil : UInt32(value)
    }

    /// Sets a slot (nil: no row), widening the slots first for a value that needs it; returns
    /// whether the slot held a row before.
    @discardableResult
    private mutating func setSlot(_ index: Int, _ value: UInt32?) -> Bool {
        if let value, !isWide, value >= UInt16.max { widen() }
        if isWide {
            defer { wideSlots[index] = value ?? .max }
            return wideSlots[index] != .max
        }
        defer { narrowSlots[index] = value.map { UInt16($0) } ?? .max }
        return narrowSlots[index] != .max
    }

    /// Moves the flat array to 4-byte slots: a value no longer fits in 2 bytes.
    private mutating func widen() {
        guard !isWide else { return }
        wideSlots = narrowSlots.map { $0 == .max ? .max : UInt32($0) }
        narrowSlots = []
        isWide = true
    }

    package subscript(rowID: Int64) -> UInt32? {
        get {
            if let sparse { return sparse[rowID] }
            guard let index = slotIndex(rowID) else { return nil }
            return slot(index)
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
        if !setSlot(Int(rowID - base), value) { count += 1 }
    }

    private mutating func remove(_ rowID: Int64) {
        if sparse != nil {
            if sparse!.removeValue(forKey: rowID) != nil { count -= 1 }
            return
        }
        if let index = slotIndex(rowID), setSlot(index, nil) { count -= 1 }
    }

    /// Switches the dictionary back to a flat array when its ids span at most a few times their
    /// count.
    private mutating func becomeFlatIfDense() {
        guard let dictionary = sparse else { return }
        let (span, overflow) = sparseHigh.subtractingReportingOverflow(sparseLow)
        guard !overflow, Self.isDense(span: span, count: count) else { return }
        base = sparseLow
        isWide = dictionary.values.contains { $0 >= UInt16.max }
        if isWide {
            wideSlots = [UInt32](repeating: .max, count: Int(span) + 1)
            for (id, value) in dictionary { wideSlots[Int(id - base)] = value }
        } else {
            narrowSlots = [UInt16](repeating: .max, count: Int(span) + 1)
            for (id, value) in dictionary { narrowSlots[Int(id - base)] = UInt16(value) }
        }
        sparse = nil
    }

    /// Grows the flat array to cover `rowID`, or switches to a dictionary when it would be sparse.
    private mutating func makeRoom(for rowID: Int64) {
        if slotCount == 0 {
            base = rowID
            grow(prepending: 0, appending: 1)
            return
        }
        let last = base + Int64(slotCount) - 1
        let low = min(base, rowID), high = max(last, rowID)
        if low == base && high == last { return }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow && Self.isDense(span: span, count: count + 1) else {
            var dictionary: [Int64: UInt32] = [:]
            dictionary.reserveCapacity(count + 1)
            for index in 0..<slotCount {
                if let value = slot(index) { dictionary[base + Int64(index)] = value }
            }
            sparse = dictionary
            (sparseLow, sparseHigh) = (low, high)
            (narrowSlots, wideSlots, isWide) = ([], [], false)
            return
        }
        grow(prepending: Int(base - low), appending: Int(high - last))
        base = low
    }

    /// Adds empty slots before and after the flat array's.
    private mutating func grow(prepending before: Int, appending after: Int) {
        // Only the slots needed: the array's own capacity grows geometrically (appending ids one
        // by one stays amortised O(1)), and capacity never written costs no memory, while slots
        // filled ahead would, at every load.
        func grow<Slot: FixedWidthInteger>(_ slots: inout [Slot]) {
            if before > 0 { slots.insert(contentsOf: repeatElement(.max, count: before), at: 0) }
            if after > 0 { slots.append(contentsOf: repeatElement(.max, count: after)) }
        }
        if isWide { grow(&wideSlots) } else { grow(&narrowSlots) }
    }
}
