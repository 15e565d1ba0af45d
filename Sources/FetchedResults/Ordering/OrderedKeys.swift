import Foundation
import Synchronization

/// Every row matching the request, as (row id, encoded sort key), in the request's total order.
///
/// The rows live in chunks of at most ``maximumChunkCount`` rows, each chunk keeping its keys
/// in one byte buffer, so that inserting or deleting a row moves at most one chunk's bytes
/// (tens of kilobytes), not the whole list. Neighbouring keys mostly share their first sort
/// values (a zone name, say), so each chunk stores the prefix all its keys share once, and only
/// the rest of each key: a third less memory for the scoreboard's keys. A row is found from its
/// id through ``RowLocator`` (id → chunk), then a scan of that chunk's ids; a key's place by binary search over the
/// chunks' last keys, then inside one chunk. With c chunks, each operation costs O(log n + c)
/// cheap steps; c stays around n / 700.
///
/// Invariants (checked by `_checkInvariants()`):
/// - keys are strictly increasing across the whole list (byte order, see ``SortKey``);
/// - no chunk is empty, and none holds more than ``maximumChunkCount`` rows;
/// - a chunk's key i is its `prefix` followed by its stored bytes for i;
/// - `chunkStarts[i]` is the number of rows in the chunks before chunk i;
/// - the locator maps exactly the ids present to the chunk holding them.
package struct OrderedKeys {
    package static let maximumChunkCount = 1024

    package struct Chunk {
        package var rowIDs: [Int64] = []
        /// The end offset of each key's rest in `bytes`; rest i starts where rest i - 1 ends.
        var ends: [Int32] = []
        /// The keys after their shared prefix, one after the other.
        var bytes: [UInt8] = []
        /// The bytes every key of the chunk starts with.
        var prefix: [UInt8] = []
        /// Stable across inserts and splits, unlike the chunk's index; the locator stores it.
        let id: UInt32

        package var count: Int { rowIDs.count }

        func keyRange(_ index: Int) -> Range<Int> {
            (index == 0 ? 0 : Int(ends[index - 1]))..<Int(ends[index])
        }

        /// Appends a key that starts with `prefix` (given whole).
        mutating func append(rowID: Int64, key: UnsafeBufferPointer<UInt8>) {
            rowIDs.append(rowID)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: key[prefix.count...]))
            ends.append(Int32(bytes.count))
        }

        func key(_ index: Int) -> [UInt8] {
            prefix + bytes[keyRange(index)]
        }

        /// The rows at `indices` (ascending) alone, in a chunk with this one's id and shared
        /// prefix: the keys of each run of neighbouring rows are copied at once.
        package func keeping(_ indices: [Int]) -> Chunk {
            var kept = Chunk(id: id)
            kept.prefix = prefix
            kept.rowIDs.reserveCapacity(indices.count)
            kept.ends.reserveCapacity(indices.count)
            var runStart = 0
            while runStart < indices.count {
                var runEnd = runStart + 1
                while runEnd < indices.count, indices[runEnd] == indices[runEnd - 1] + 1 { runEnd += 1 }
                let first = indices[runStart], last = indices[runEnd - 1]
                let from = keyRange(first).lowerBound
                let shift = Int32(kept.bytes.count - from)
                kept.bytes.append(contentsOf: bytes[from..<Int(ends[last])])
                kept.rowIDs.append(contentsOf: rowIDs[first...last])
                for index in first...last { kept.ends.append(ends[index] + shift) }
                runStart = runEnd
            }
            return kept
        }

        /// Rows a chunk's arrays grow by when full.
        static let growthRows = 32

        /// Makes room for `rows` more rows and `byteCount` more key bytes, growing by
        /// ``growthRows`` rows at a time when short. Swift's arrays double when full, and a load
        /// leaves every chunk's arrays full: doubled at its first insert, each chunk would hold
        /// twice the memory its keys need, and after an evening of wins every chunk has had one.
        mutating func makeRoom(rows: Int, bytes byteCount: Int) {
            if rowIDs.count + rows > rowIDs.capacity { rowIDs.reserveCapacity(rowIDs.count + rows + Self.growthRows) }
            if ends.count + rows > ends.capacity { ends.reserveCapacity(ends.count + rows + Self.growthRows) }
            if bytes.count + byteCount > bytes.capacity {
                let averageRest = count > 0 ? bytes.count / count : byteCount
                bytes.reserveCapacity(bytes.count + byteCount + Self.growthRows * averageRest)
            }
        }

        /// Removes row `index` and its key.
        mutating func remove(at index: Int) {
            let range = keyRange(index)
            rowIDs.remove(at: index)
            removeBytes(range)
            ends.remove(at: index)
            shiftEnds(from: index, by: -Int32(range.count))
        }

        /// Removes a key's bytes with one `memmove` of the bytes after them (the array's own
        /// `removeSubrange` moved them one at a time).
        mutating func removeBytes(_ range: Range<Int>) {
            guard !range.isEmpty else { return }
            bytes.withUnsafeMutableBufferPointer { bytes in
                let tail = bytes.count - range.upperBound
                if tail > 0 {
                    memmove(bytes.baseAddress! + range.lowerBound, bytes.baseAddress! + range.upperBound, tail)
                }
            }
            bytes.removeLast(range.count)
        }

        /// Moves the ends of the keys from `index` on by `delta` bytes, after a key was inserted
        /// or removed before them. A loop over the buffer, which the compiler vectorises; through
        /// the array it checked bounds and uniqueness at every element.
        mutating func shiftEnds(from index: Int, by delta: Int32) {
            ends.withUnsafeMutableBufferPointer { ends in
                for later in index..<ends.count { ends[later] &+= delta }
            }
        }

        /// Moves key `index` to `target`, its rest (after the prefix) now `rest`: the keys
        /// between the two places shift by one, and only their bytes and ends are rewritten.
        mutating func move(from index: Int, to target: Int, rest: UnsafeBufferPointer<UInt8>) {
            let (low, high) = (min(index, target), max(index, target))
            let start = low == 0 ? 0 : Int(ends[low - 1])
            let old = keyRange(index)
            // The region's keys in their new order: the others as they were, the moved one at
            // its new place.
            var region: [UInt8] = []
            region.reserveCapacity(Int(ends[high]) - start - old.count + rest.count)
            var regionEnds: [Int32] = []
            regionEnds.reserveCapacity(high - low + 1)
            var others = (low...high).lazy.filter { $0 != index }.makeIterator()
            for slot in low...high {
                if slot == target {
                    region.append(contentsOf: rest)
                } else {
                    region.append(contentsOf: bytes[keyRange(others.next()!)])
                }
                regionEnds.append(Int32(start + region.count))
            }
            let delta = Int32(rest.count - old.count)
            if delta > 0 { makeRoom(rows: 0, bytes: Int(delta)) }
            bytes.replaceSubrange(start..<Int(ends[high]), with: region)
            ends.replaceSubrange(low...high, with: regionEnds)
            if delta != 0 { shiftEnds(from: high + 1, by: delta) }
            let moved = rowIDs[index]
            if index < target {
                for slot in index..<target { rowIDs[slot] = rowIDs[slot + 1] }
            } else {
                for slot in stride(from: index, to: target, by: -1) { rowIDs[slot] = rowIDs[slot - 1] }
            }
            rowIDs[target] = moved
        }

        /// Orders key `index` against `key`, like ``SortKey/compare(_:_:)``.
        func compare(_ index: Int, with key: UnsafeBufferPointer<UInt8>) -> Int {
            prefix.withUnsafeBufferPointer { prefix in
                let common = min(prefix.count, key.count)
                if common > 0 {
                    let order = memcmp(prefix.baseAddress!, key.baseAddress!, common)
                    if order != 0 { return Int(order) }
                }
                // `key` is a proper prefix of the shared prefix: the stored key is longer.
                if key.count < prefix.count { return 1 }
                return bytes.withUnsafeBufferPointer { bytes in
                    SortKey.compare(
                        UnsafeBufferPointer(rebasing: bytes[keyRange(index)]),
                        UnsafeBufferPointer(rebasing: key[prefix.count...]))
                }
            }
        }

        /// Whether key `index` starts with `start`.
        func key(_ index: Int, startsWith start: [UInt8]) -> Bool {
            if start.count <= prefix.count { return prefix[0..<start.count].elementsEqual(start) }
            let rest = bytes[keyRange(index)]
            return prefix.elementsEqual(start[0..<prefix.count])
                && rest.count >= start.count - prefix.count
                && rest.prefix(start.count - prefix.count).elementsEqual(start[prefix.count...])
        }

        /// Shortens the shared prefix to `length` bytes, moving the rest into every key.
        mutating func shortenPrefix(to length: Int) {
            guard length < prefix.count else { return }
            let moved = prefix[length...]
            var rebuilt: [UInt8] = []
            rebuilt.reserveCapacity(bytes.count + moved.count * count)
            var start = 0
            for index in 0..<count {
                let end = Int(ends[index])
                rebuilt.append(contentsOf: moved)
                rebuilt.append(contentsOf: bytes[start..<end])
                ends[index] = Int32(rebuilt.count)
                start = end
            }
            bytes = rebuilt
            prefix.removeSubrange(length...)
        }

        /// Makes the shared prefix as long as the keys allow (sorted keys share what the first
        /// and the last share).
        mutating func lengthenPrefix() {
            guard count > 0 else { return }
            let first = bytes[keyRange(0)], last = bytes[keyRange(count - 1)]
            let extra = zip(first, last).prefix { $0 == $1 }.count
            guard extra > 0 else { return }
            prefix.append(contentsOf: first.prefix(extra))
            var rebuilt: [UInt8] = []
            rebuilt.reserveCapacity(bytes.count - extra * count)
            var start = 0
            for index in 0..<count {
                let end = Int(ends[index])
                rebuilt.append(contentsOf: bytes[(start + extra)..<end])
                ends[index] = Int32(rebuilt.count)
                start = end
            }
            bytes = rebuilt
        }
    }

    package private(set) var chunks: [Chunk] = []
    /// The position of each chunk's first row.
    private(set) var chunkStarts: [Int] = []
    private var chunkIndexByID: [UInt32: Int] = [:]
    private var locator = RowLocator()
    private var nextChunkID: UInt32 = 0
    package private(set) var count = 0
    /// Changes whenever a key already held moves, leaves or is joined by one among them (not
    /// when rows are appended after the last): what was worked out per chunk (a search's
    /// counts) holds while it stays the same. Unique across every list of the process.
    package private(set) var version = OrderedKeys.makeVersion()

    private static let versions = Atomic<UInt64>(0)

    private static func makeVersion() -> UInt64 {
        versions.add(1, ordering: .relaxed).newValue
    }

    package init() {}

    /// Builds the list from chunks already in order (a fresh fetch, or a cache file).
    package init(sortedChunks: [Chunk]) {
        self.init(sortedChunks: sortedChunks, locator: RowLocator(chunks: sortedChunks))
    }

    /// Builds the list from chunks already in order and a locator that maps their rows (built
    /// along as the chunks were read).
    package init(sortedChunks: [Chunk], locator: RowLocator) {
        chunks = sortedChunks.filter { $0.count > 0 }
        nextChunkID = (chunks.map(\.id).max() ?? 0) + 1
        reindexChunks(from: 0)
        self.locator = locator
    }

    /// Collects rows in order into chunks, for ``init(sortedChunks:)``.
    package struct Builder {
        private(set) var chunks: [Chunk] = []
        private var current = Self.newChunk(id: 0)

        package init() {}

        /// Rows per chunk built: room left for inserts before a chunk splits.
        static let fill = OrderedKeys.maximumChunkCount * 3 / 4

        /// A chunk with room for exactly `fill` rows' ids and key ends: grown by doubling, the
        /// arrays would keep room for 1,024, a third more than they hold, in every chunk.
        private static func newChunk(id: UInt32) -> Chunk {
            var chunk = Chunk(id: id)
            chunk.rowIDs.reserveCapacity(fill)
            chunk.ends.reserveCapacity(fill)
            return chunk
        }

        package mutating func append(rowID: Int64, key: [UInt8]) {
            if current.count == Self.fill {
                current.lengthenPrefix()
                chunks.append(current)
                current = Self.newChunk(id: UInt32(chunks.count))
            }
            key.withUnsafeBufferPointer { current.append(rowID: rowID, key: $0) }
        }

        package func finish() -> OrderedKeys {
            OrderedKeys(sortedChunks: finishedChunks())
        }

        /// The row ids collected, in order.
        package var rowIDs: [Int64] { chunks.flatMap(\.rowIDs) + current.rowIDs }

        /// The chunks collected, the last one closed.
        func finishedChunks() -> [Chunk] {
            var last = current
            last.lengthenPrefix()
            return chunks + [last]
        }
    }

    // MARK: - Reading

    package func rowID(at position: Int) -> Int64 {
        let (chunk, index) = locate(position)
        return chunks[chunk].rowIDs[index]
    }

    /// The whole key at `position`.
    package func key(at position: Int) -> [UInt8] {
        let (chunk, index) = locate(position)
        return chunks[chunk].key(index)
    }

    /// Calls `body` with each position's offset in `range` and its row id, in order: a chunk at
    /// a time, without locating each position.
    package func forEachRowID(in range: Range<Int>, _ body: (_ offset: Int, _ rowID: Int64) -> Void) {
        guard !range.isEmpty else { return }
        var (chunk, index) = locate(range.lowerBound)
        var offset = 0
        while offset < range.count {
            let rowIDs = chunks[chunk].rowIDs
            let take = min(rowIDs.count - index, range.count - offset)
            for rowID in rowIDs[index..<(index + take)] {
                body(offset, rowID)
                offset += 1
            }
            (chunk, index) = (chunk + 1, 0)
        }
    }

    /// The position of the row with this id, or nil when it is not in the list.
    package func position(of rowID: Int64) -> Int? {
        guard let chunkID = locator[rowID], let chunk = chunkIndexByID[chunkID],
            let index = chunks[chunk].rowIDs.firstIndex(of: rowID)
        else { return nil }
        return chunkStarts[chunk] + index
    }

    package func contains(_ rowID: Int64) -> Bool { locator[rowID] != nil }

    /// The first position whose key sorts at or after `key`.
    package func insertionIndex(of key: UnsafeBufferPointer<UInt8>) -> Int {
        let (chunk, index) = insertionPlace(of: key)
        return chunk < chunks.count ? chunkStarts[chunk] + index : count
    }

    /// The first position in `range` whose key does not start with `prefix`; the rows from
    /// `range.lowerBound` up to it all start with it (one section).
    package func endOfRun(withPrefix prefix: [UInt8], in range: Range<Int>) -> Int {
        var (low, high) = (range.lowerBound, range.upperBound)
        while low < high {
            let middle = (low + high) / 2
            let (chunk, index) = locate(middle)
            if chunks[chunk].key(index, startsWith: prefix) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    // MARK: - Changing

    /// Inserts a row whose id is not in the list yet.
    package mutating func insert(rowID: Int64, key: [UInt8]) {
        version = Self.makeVersion()
        key.withUnsafeBufferPointer { key in
            if chunks.isEmpty {
                var first = Chunk(id: makeChunkID())
                first.append(rowID: rowID, key: key)
                first.lengthenPrefix()
                chunks.append(first)
                reindexChunks(from: 0)
                locator[rowID] = first.id
                return
            }
            let (chunk, index) = insertionPlaceInAChunk(of: key)
            put(rowID, key: key, inChunk: chunk, at: index)
            count += 1
            if chunks[chunk].count > Self.maximumChunkCount {
                split(chunk)
            } else {
                shiftStarts(after: chunk, by: 1)
            }
        }
    }

    /// Moves the row at `position` to the place of its new `key` and returns its new position.
    /// A changed sort value mostly moves a row a few places (a +1 win): when its new place is in
    /// the same chunk and the key keeps the chunk's shared prefix, only the keys between the
    /// old place and the new one move, and no other chunk or the locator changes; otherwise
    /// the row is removed and inserted again.
    @discardableResult
    package mutating func move(rowID: Int64, at position: Int, to key: [UInt8]) -> Int {
        let (chunk, index) = locate(position)
        precondition(chunks[chunk].rowIDs[index] == rowID, "row \(rowID) is at position \(position)")
        let moved = key.withUnsafeBufferPointer { key -> Int? in
            guard let target = placeInChunk(chunk, moving: index, key: key) else { return nil }
            version = Self.makeVersion()
            chunks[chunk].move(
                from: index, to: target, rest: UnsafeBufferPointer(rebasing: key[chunks[chunk].prefix.count...]))
            return chunkStarts[chunk] + target
        }
        if let moved { return moved }
        if let moved = moveAcrossChunks(rowID, from: chunk, at: index, to: key) { return moved }
        remove(rowID: rowID)
        insert(rowID: rowID, key: key)
        return self.position(of: rowID)!
    }

    /// Moves key `index` of chunk `source` into the chunk where `key` belongs, when that is
    /// another chunk, `source` keeps a row and the other has room: only the starts of the chunks
    /// between the two change. Nil, having changed nothing, otherwise.
    private mutating func moveAcrossChunks(_ rowID: Int64, from source: Int, at index: Int, to key: [UInt8]) -> Int? {
        key.withUnsafeBufferPointer { key -> Int? in
            let (target, targetIndex) = insertionPlaceInAChunk(of: key, near: source)
            guard target != source, chunks[source].count > 1, chunks[target].count < Self.maximumChunkCount
            else { return nil }
            version = Self.makeVersion()
            chunks[source].remove(at: index)
            put(rowID, key: key, inChunk: target, at: targetIndex)
            chunkStarts.withUnsafeMutableBufferPointer { starts in
                if source < target {
                    for between in (source + 1)...target { starts[between] -= 1 }
                } else {
                    for between in (target + 1)...source { starts[between] += 1 }
                }
            }
            return chunkStarts[target] + targetIndex
        }
    }

    /// The chunk and index where `key` goes: after the last key, the end of the last chunk.
    private func insertionPlaceInAChunk(
        of key: UnsafeBufferPointer<UInt8>, near: Int? = nil
    ) -> (chunk: Int, index: Int) {
        let (chunk, index) = insertionPlace(of: key, near: near)
        return chunk == chunks.count ? (chunk - 1, chunks[chunk - 1].count) : (chunk, index)
    }

    /// Puts a row into `chunk` at `index`, its key's place there, shortening the chunk's shared
    /// prefix to what the key shares; the starts of the chunks after it are the caller's.
    private mutating func put(_ rowID: Int64, key: UnsafeBufferPointer<UInt8>, inChunk chunk: Int, at index: Int) {
        let shared = zip(chunks[chunk].prefix, key).prefix { $0 == $1 }.count
        chunks[chunk].shortenPrefix(to: shared)
        let rest = UnsafeBufferPointer(rebasing: key[shared...])
        let offset = index == 0 ? 0 : Int(chunks[chunk].ends[index - 1])
        chunks[chunk].makeRoom(rows: 1, bytes: rest.count)
        chunks[chunk].rowIDs.insert(rowID, at: index)
        chunks[chunk].bytes.insert(contentsOf: rest, at: offset)
        chunks[chunk].ends.insert(Int32(offset), at: index)
        chunks[chunk].shiftEnds(from: index, by: Int32(rest.count))
        locator[rowID] = chunks[chunk].id
    }

    /// The index in `chunk` that key `index` takes when its key becomes `key`, or nil when the
    /// key's place is outside the chunk or it lacks the chunk's shared prefix.
    private func placeInChunk(_ chunk: Int, moving index: Int, key: UnsafeBufferPointer<UInt8>) -> Int? {
        let prefix = chunks[chunk].prefix
        guard key.count >= prefix.count,
            prefix.withUnsafeBufferPointer({ $0.isEmpty || memcmp($0.baseAddress!, key.baseAddress!, $0.count) == 0 })
        else { return nil }
        // Binary search among the chunk's other keys: the first one after `key`.
        let others = chunks[chunk].count - 1
        var (low, high) = (0, others)
        while low < high {
            let middle = (low + high) / 2
            if chunks[chunk].compare(middle < index ? middle : middle + 1, with: key) < 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        // At either end of the chunk, the key must stay between its neighbouring chunks.
        if low == 0, chunk > 0, chunks[chunk - 1].compare(chunks[chunk - 1].count - 1, with: key) > 0 { return nil }
        if low == others, chunk < chunks.count - 1, chunks[chunk + 1].compare(0, with: key) < 0 { return nil }
        return low
    }

    /// Appends rows collected in order whose keys all follow the last key held (the next rows
    /// of a progressive load): O(k) for k rows, whole chunks at a time.
    package mutating func append(_ rows: Builder) {
        let added = rows.finishedChunks().filter { $0.count > 0 }
        guard let first = added.first else { return }
        #if DEBUG
            if let last = chunks.last {
                precondition(
                    SortKey.compare(last.key(last.count - 1), first.key(0)) < 0, "appended keys follow every key held")
            }
        #endif
        let firstNew = chunks.count
        for chunk in added {
            var renamed = Chunk(id: makeChunkID())
            renamed.rowIDs = chunk.rowIDs
            renamed.ends = chunk.ends
            renamed.bytes = chunk.bytes
            renamed.prefix = chunk.prefix
            // A chunk at a time: one id after another, each id would pay checks of its own,
            // and a progressive load appends every id.
            locator.add(renamed)
            chunks.append(renamed)
        }
        reindexChunks(from: firstNew)
    }

    /// Removes the last `k` rows (undoing an ``append(_:)``).
    package mutating func removeLast(_ k: Int) {
        for _ in 0..<k {
            remove(rowID: rowID(at: count - 1))
        }
    }

    /// Removes a row; returns false when it was not in the list.
    @discardableResult
    package mutating func remove(rowID: Int64) -> Bool {
        guard let chunkID = locator[rowID], let chunk = chunkIndexByID[chunkID],
            let index = chunks[chunk].rowIDs.firstIndex(of: rowID)
        else { return false }
        version = Self.makeVersion()
        chunks[chunk].remove(at: index)
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
    ///
    /// - Parameter near: a chunk the place is likely close to (the one a moving row leaves):
    ///   the search gallops out from it, reading a few neighbouring chunks instead of chunks
    ///   all over the list.
    private func insertionPlace(of key: UnsafeBufferPointer<UInt8>, near: Int? = nil) -> (chunk: Int, index: Int) {
        // The first chunk whose last key is not below `key`, between `low` and `high`.
        var (low, high) = near.map { chunksAround($0, holding: key) } ?? (0, chunks.count)
        while low < high {
            let middle = (low + high) / 2
            if lastKey(of: middle, isBelow: key) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        guard low < chunks.count else { return (chunks.count, 0) }
        let chunk = low
        var (first, end) = (0, chunks[chunk].count)
        while first < end {
            let middle = (first + end) / 2
            if chunks[chunk].compare(middle, with: key) < 0 { first = middle + 1 } else { end = middle }
        }
        return (chunk, first)
    }

    private func lastKey(of chunk: Int, isBelow key: UnsafeBufferPointer<UInt8>) -> Bool {
        chunks[chunk].compare(chunks[chunk].count - 1, with: key) < 0
    }

    /// The range of chunks that holds the first chunk whose last key is not below `key`, found
    /// by steps of 1, 2, 4… from `near`.
    private func chunksAround(_ near: Int, holding key: UnsafeBufferPointer<UInt8>) -> (low: Int, high: Int) {
        var step = 1
        if lastKey(of: near, isBelow: key) {
            var low = near + 1
            while low + step - 1 < chunks.count, lastKey(of: low + step - 1, isBelow: key) {
                low += step
                step *= 2
            }
            return (low, min(low + step - 1, chunks.count))
        }
        var high = near
        while high - step >= 0, !lastKey(of: high - step, isBelow: key) {
            high -= step
            step *= 2
        }
        return (max(high - step + 1, 0), high)
    }

    /// The chunk and index inside it of a position.
    func locate(_ position: Int) -> (chunk: Int, index: Int) {
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
        let cut = Int(chunks[chunk].ends[half - 1])
        upper.prefix = chunks[chunk].prefix
        upper.rowIDs = Array(chunks[chunk].rowIDs[half...])
        upper.bytes = Array(chunks[chunk].bytes[cut...])
        upper.ends = chunks[chunk].ends[half...].map { $0 - Int32(cut) }
        upper.lengthenPrefix()
        chunks[chunk].rowIDs.removeSubrange(half...)
        chunks[chunk].ends.removeSubrange(half...)
        chunks[chunk].bytes.removeSubrange(cut...)
        chunks[chunk].lengthenPrefix()
        for rowID in upper.rowIDs { locator[rowID] = upper.id }
        chunks.insert(upper, at: chunk + 1)
        reindexChunks(from: chunk)
    }

    private mutating func makeChunkID() -> UInt32 {
        defer { nextChunkID += 1 }
        return nextChunkID
    }

    private mutating func shiftStarts(after chunk: Int, by delta: Int) {
        chunkStarts.withUnsafeMutableBufferPointer { starts in
            for later in (chunk + 1)..<starts.count { starts[later] += delta }
        }
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

    /// The bytes the chunks' arrays have allocated room for (ids, key ends, key bytes and
    /// prefixes): what the keys cost in memory, as opposed to what they hold.
    package var _allocatedByteCount: Int {
        chunks.reduce(0) { total, chunk in
            total + chunk.rowIDs.capacity * MemoryLayout<Int64>.stride
                + chunk.ends.capacity * MemoryLayout<Int32>.stride + chunk.bytes.capacity + chunk.prefix.capacity
        }
    }

    /// Checks the stated invariants (a debug aid: traps on the first one broken).
    package func _checkInvariants() {
        var start = 0
        var previous: [UInt8]?
        for (index, chunk) in chunks.enumerated() {
            precondition(chunk.count > 0 && chunk.count <= Self.maximumChunkCount, "chunk sizes stay in bounds")
            precondition(
                chunk.ends.count == chunk.count && Int(chunk.ends.last!) == chunk.bytes.count, "each key has its end")
            precondition(chunk.prefix.count < Int32.max, "the prefix is bounded")
            precondition(chunkStarts[index] == start, "chunk starts count the rows before")
            precondition(chunkIndexByID[chunk.id] == index, "chunk ids find their chunk")
            for row in 0..<chunk.count {
                precondition(locator[chunk.rowIDs[row]] == chunk.id, "the locator finds each row's chunk")
                let key = chunk.key(row)
                if let previous {
                    precondition(SortKey.compare(previous, key) < 0, "keys are strictly increasing")
                }
                previous = key
            }
            start += chunk.count
        }
        precondition(start == count && locator.count == count, "every row is counted and located once")
    }
}
