/// Every row matching the request, as (row id, encoded sort key), in the request's total order.
///
/// The rows live in chunks of at most ``maximumChunkCount`` rows, each chunk keeping its keys
/// in one byte buffer, so that inserting or deleting a row moves at most one chunk's bytes
/// (tens of kilobytes), not the whole list. A row is found from its id through ``RowLocator``
/// (id → chunk), then a scan of that chunk's ids; a key's place by binary search over the
/// chunks' last keys, then inside one chunk. With c chunks, each operation costs O(log n + c)
/// cheap steps; c stays around n / 700.
///
/// Invariants (checked by `_checkInvariants()`):
/// - keys are strictly increasing across the whole list (byte order, see ``SortKeyEncoding``);
/// - no chunk is empty, and none holds more than ``maximumChunkCount`` rows;
/// - `chunkStarts[i]` is the number of rows in the chunks before chunk i;
/// - the locator maps exactly the ids present to the chunk holding them.
struct OrderedKeys {
    static let maximumChunkCount = 1024

    struct Chunk {
        var rowIDs: [Int64] = []
        /// The end offset of each key in `bytes`; key i starts where key i - 1 ends.
        var ends: [Int32] = []
        var bytes: [UInt8] = []
        /// Stable across inserts and splits, unlike the chunk's index; the locator stores it.
        let id: UInt32

        var count: Int { rowIDs.count }

        func keyRange(_ index: Int) -> Range<Int> {
            (index == 0 ? 0 : Int(ends[index - 1]))..<Int(ends[index])
        }

        mutating func append(rowID: Int64, key: UnsafeBufferPointer<UInt8>) {
            rowIDs.append(rowID)
            bytes.append(contentsOf: key)
            ends.append(Int32(bytes.count))
        }
    }

    private(set) var chunks: [Chunk] = []
    private var chunkStarts: [Int] = []
    private var chunkIndexByID: [UInt32: Int] = [:]
    private var locator = RowLocator()
    private var nextChunkID: UInt32 = 0
    private(set) var count = 0

    init() {}

    /// Builds the list from chunks already in order (a fresh fetch, or a cache file).
    init(sortedChunks: [Chunk]) {
        chunks = sortedChunks.filter { $0.count > 0 }
        nextChunkID = (chunks.map(\.id).max() ?? 0) + 1
        reindexChunks(from: 0)
        locator = RowLocator(chunks: chunks)
    }

    /// Collects rows in order into chunks, for ``init(sortedChunks:)``.
    struct Builder {
        private(set) var chunks: [Chunk] = []
        private var current = Chunk(id: 0)

        mutating func append(rowID: Int64, key: [UInt8]) {
            if current.count == OrderedKeys.maximumChunkCount * 3 / 4 {
                chunks.append(current)
                current = Chunk(id: UInt32(chunks.count))
            }
            key.withUnsafeBufferPointer { current.append(rowID: rowID, key: $0) }
        }

        func finish() -> OrderedKeys {
            OrderedKeys(sortedChunks: chunks + [current])
        }
    }

    // MARK: - Reading

    func rowID(at position: Int) -> Int64 {
        let (chunk, index) = locate(position)
        return chunks[chunk].rowIDs[index]
    }

    /// Calls `body` with the key at `position`.
    func withKey<T>(at position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        let (chunk, index) = locate(position)
        return try withKey(chunk: chunk, index: index, body)
    }

    private func withKey<T>(chunk: Int, index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        let range = chunks[chunk].keyRange(index)
        return try chunks[chunk].bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    func key(at position: Int) -> [UInt8] {
        withKey(at: position) { Array($0) }
    }

    /// The position of the row with this id, or nil when it is not in the list.
    func position(of rowID: Int64) -> Int? {
        guard let chunkID = locator[rowID], let chunk = chunkIndexByID[chunkID],
              let index = chunks[chunk].rowIDs.firstIndex(of: rowID) else { return nil }
        return chunkStarts[chunk] + index
    }

    func contains(_ rowID: Int64) -> Bool { locator[rowID] != nil }

    /// The first position whose key sorts at or after `key`.
    func insertionIndex(of key: UnsafeBufferPointer<UInt8>) -> Int {
        let (chunk, index) = insertionPlace(of: key)
        return chunk < chunks.count ? chunkStarts[chunk] + index : count
    }

    /// The first position in `range` whose key does not start with `prefix`; the rows from
    /// `range.lowerBound` up to it all start with it (one section).
    func endOfRun(withPrefix prefix: [UInt8], in range: Range<Int>) -> Int {
        var (low, high) = (range.lowerBound, range.upperBound)
        prefix.withUnsafeBufferPointer { prefix in
            while low < high {
                let middle = (low + high) / 2
                let matches = withKey(at: middle) { key in
                    key.count >= prefix.count && SortKeyEncoding.compare(UnsafeBufferPointer(rebasing: key[0..<prefix.count]), prefix) == 0
                }
                if matches { low = middle + 1 } else { high = middle }
            }
        }
        return low
    }

    // MARK: - Changing

    /// Inserts a row whose id is not in the list yet.
    mutating func insert(rowID: Int64, key: [UInt8]) {
        key.withUnsafeBufferPointer { key in
            if chunks.isEmpty {
                var first = Chunk(id: makeChunkID())
                first.append(rowID: rowID, key: key)
                chunks.append(first)
                reindexChunks(from: 0)
                locator[rowID] = first.id
                return
            }
            var (chunk, index) = insertionPlace(of: key)
            if chunk == chunks.count {  // after the last key: append to the last chunk
                chunk -= 1
                index = chunks[chunk].count
            }
            let offset = index == 0 ? 0 : Int(chunks[chunk].ends[index - 1])
            chunks[chunk].rowIDs.insert(rowID, at: index)
            chunks[chunk].bytes.insert(contentsOf: key, at: offset)
            chunks[chunk].ends.insert(Int32(offset), at: index)
            for later in index..<chunks[chunk].ends.count { chunks[chunk].ends[later] += Int32(key.count) }
            locator[rowID] = chunks[chunk].id
            count += 1
            if chunks[chunk].count > Self.maximumChunkCount {
                split(chunk)
            } else {
                shiftStarts(after: chunk, by: 1)
            }
        }
    }

    /// Removes a row; returns false when it was not in the list.
    @discardableResult
    mutating func remove(rowID: Int64) -> Bool {
        guard let chunkID = locator[rowID], let chunk = chunkIndexByID[chunkID],
              let index = chunks[chunk].rowIDs.firstIndex(of: rowID) else { return false }
        let range = chunks[chunk].keyRange(index)
        chunks[chunk].rowIDs.remove(at: index)
        chunks[chunk].bytes.removeSubrange(range)
        chunks[chunk].ends.remove(at: index)
        for later in index..<chunks[chunk].ends.count { chunks[chunk].ends[later] -= Int32(range.count) }
        locator[rowID] = nil
        count -= 1
        if chunks[chunk].count == 0 {
            chunkIndexByID[chunkID] = nil
            chunks.remove(at: chunk)
            reindexChunks(from: chunk)
        } else {
            shiftStarts(after: chunk, by: -1)
        }
        return true
    }

    // MARK: - Internals

    /// The chunk and index inside it where `key` belongs; `(chunks.count, 0)` after the end.
    private func insertionPlace(of key: UnsafeBufferPointer<UInt8>) -> (chunk: Int, index: Int) {
        // The first chunk whose last key is not below `key`.
        var (low, high) = (0, chunks.count)
        while low < high {
            let middle = (low + high) / 2
            let last = chunks[middle].count - 1
            if withKey(chunk: middle, index: last, { SortKeyEncoding.compare($0, key) }) < 0 { low = middle + 1 } else { high = middle }
        }
        guard low < chunks.count else { return (chunks.count, 0) }
        let chunk = low
        var (first, end) = (0, chunks[chunk].count)
        while first < end {
            let middle = (first + end) / 2
            if withKey(chunk: chunk, index: middle, { SortKeyEncoding.compare($0, key) }) < 0 { first = middle + 1 } else { end = middle }
        }
        return (chunk, first)
    }

    /// The chunk and index inside it of a position.
    private func locate(_ position: Int) -> (chunk: Int, index: Int) {
        precondition(position >= 0 && position < count, "position \(position) is outside 0..<\(count)")
        var (low, high) = (0, chunks.count - 1)
        while low < high {
            let middle = (low + high + 1) / 2
            if chunkStarts[middle] <= position { low = middle } else { high = middle - 1 }
        }
        return (low, position - chunkStarts[low])
    }

    private mutating func split(_ chunk: Int) {
        let half = chunks[chunk].count / 2
        var upper = Chunk(id: makeChunkID())
        chunks[chunk].bytes.withUnsafeBufferPointer { bytes in
            for index in half..<chunks[chunk].count {
                upper.append(rowID: chunks[chunk].rowIDs[index], key: UnsafeBufferPointer(rebasing: bytes[chunks[chunk].keyRange(index)]))
            }
        }
        let cut = Int(chunks[chunk].ends[half - 1])
        chunks[chunk].rowIDs.removeSubrange(half...)
        chunks[chunk].ends.removeSubrange(half...)
        chunks[chunk].bytes.removeSubrange(cut...)
        for rowID in upper.rowIDs { locator[rowID] = upper.id }
        chunks.insert(upper, at: chunk + 1)
        reindexChunks(from: chunk)
    }

    private mutating func makeChunkID() -> UInt32 {
        defer { nextChunkID += 1 }
        return nextChunkID
    }

    private mutating func shiftStarts(after chunk: Int, by delta: Int) {
        for later in (chunk + 1)..<chunks.count { chunkStarts[later] += delta }
    }

    private mutating func reindexChunks(from first: Int) {
        chunkStarts.removeSubrange(min(first, chunkStarts.count)...)
        var start = first == 0 ? 0 : chunkStarts[first - 1] + chunks[first - 1].count
        for index in first..<chunks.count {
            chunkStarts.append(start)
            chunkIndexByID[chunks[index].id] = index
            start += chunks[index].count
        }
        count = start
    }

    /// Checks the stated invariants; for tests and debug builds.
    func _checkInvariants() {
        var start = 0
        var previous: [UInt8]?
        for (index, chunk) in chunks.enumerated() {
            precondition(chunk.count > 0 && chunk.count <= Self.maximumChunkCount, "chunk sizes stay in bounds")
            precondition(chunk.ends.count == chunk.count && Int(chunk.ends.last!) == chunk.bytes.count, "each key has its end")
            precondition(chunkStarts[index] == start, "chunk starts count the rows before")
            precondition(chunkIndexByID[chunk.id] == index, "chunk ids find their chunk")
            for row in 0..<chunk.count {
                precondition(locator[chunk.rowIDs[row]] == chunk.id, "the locator finds each row's chunk")
                let key = Array(chunk.bytes[chunk.keyRange(row)])
                if let previous {
                    let ordered = previous.withUnsafeBufferPointer { a in key.withUnsafeBufferPointer { b in SortKeyEncoding.compare(a, b) < 0 } }
                    precondition(ordered, "keys are strictly increasing")
                }
                previous = key
            }
            start += chunk.count
        }
        precondition(start == count && locator.count == count, "every row is counted and located once")
    }
}
