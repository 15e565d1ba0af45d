import FetchedResults
import Foundation
import GRDB
import TestSupport
import Testing

@testable import FetchedResults
@testable import FetchedResultsSQLite

/// The chunked ordered list against a plain sorted array, with enough rows to split, empty and
/// remove chunks, and row ids dense, sparse and switching between the two.
@Suite struct OrderedKeysTests {
    static let encoding = SortKeyEncoding(descriptors: [
        ColumnSortDescriptor(key: "group"), ColumnSortDescriptor(key: "score", ascending: false),
    ])

    static func key(_ rowID: Int64, _ random: inout SplitMix64) -> [UInt8] {
        encoding.key(
            [
                ("g" + String(Int.random(in: 0..<7, using: &random))).databaseValue,
                Int64.random(in: 0..<50, using: &random).databaseValue,
            ], rowID: rowID)
    }

    static func less(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in SortKey.compare(x, y) < 0 } }
    }

    @Test(arguments: [(dense: true, seed: UInt64(1)), (dense: false, seed: 2), (dense: true, seed: 3)])
    func matchesASortedArrayThroughInsertsMovesAndDeletes(dense: Bool, seed: UInt64) {
        print("OrderedKeysTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        // Start from a fetch-built list, as performFetch makes it.
        var oracle: [(rowID: Int64, key: [UInt8])] = (1...3000).map { index in
            let rowID = dense ? Int64(index) : Int64(index) * 1_000_003
            return (rowID, Self.key(rowID, &random))
        }
        oracle.sort { Self.less($0.key, $1.key) }
        var builder = OrderedKeys.Builder()
        for row in oracle { builder.append(rowID: row.rowID, key: row.key) }
        var keys = builder.finish()
        keys._checkInvariants()
        var nextRowID: Int64 = dense ? 3001 : 9_000_000_000

        for step in 0..<6000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0...3:  // insert (sometimes far away, which turns a dense locator sparse)
                let rowID = step == 3000 ? Int64.max - 5 : nextRowID
                nextRowID += 1
                let key = Self.key(rowID, &random)
                keys.insert(rowID: rowID, key: key)
                oracle.insert((rowID, key), at: oracle.firstIndex { !Self.less($0.key, key) } ?? oracle.count)
            case 4...6 where !oracle.isEmpty:  // move: a changed sort value
                let index = Int.random(in: 0..<oracle.count, using: &random)
                let rowID = oracle.remove(at: index).rowID
                let key = Self.key(rowID, &random)
                let removed = keys.remove(rowID: rowID)
                #expect(removed)
                keys.insert(rowID: rowID, key: key)
                oracle.insert((rowID, key), at: oracle.firstIndex { !Self.less($0.key, key) } ?? oracle.count)
            case _ where !oracle.isEmpty:  // delete, in long runs sometimes, to empty chunks
                for _ in 0..<(Int.random(in: 0..<20, using: &random) == 0 ? 400 : 1) where !oracle.isEmpty {
                    let index = min(oracle.count - 1, Int.random(in: 0..<50, using: &random))
                    let removed = keys.remove(rowID: oracle.remove(at: index).rowID)
                    #expect(removed)
                }
            default:
                break
            }
            if step % 500 == 0 { keys._checkInvariants() }
        }
        keys._checkInvariants()
        #expect(keys.count == oracle.count)
        #expect((0..<keys.count).map { keys.rowID(at: $0) } == oracle.map(\.rowID))
        for (position, row) in oracle.enumerated() where position % 7 == 0 {
            #expect(keys.position(of: row.rowID) == position)
            #expect(row.key.withUnsafeBufferPointer { keys.insertionIndex(of: $0) } == position)
        }
        #expect(keys.position(of: -42) == nil)
        let removedMissing = keys.remove(rowID: -42)
        #expect(!removedMissing)
    }

    /// `move(rowID:at:to:)`, as a win moves a team: mostly a score changed by one (a few places,
    /// inside a chunk), sometimes another group (into another chunk) or a value that changes the
    /// key's length (and a chunk's shared prefix), checked against a sorted array after every
    /// move, with the position it returns.
    @Test(arguments: [(rows: 2500, seed: UInt64(4)), (rows: 2500, seed: 5), (rows: 20000, seed: 6)])
    func movesMatchASortedArray(rows: Int, seed: UInt64) {
        print("OrderedKeysTests move seed \(seed), \(rows) rows")
        var random = SplitMix64(seed: seed)
        var values: [Int64: (group: String, score: Int64)] = [:]
        func key(_ rowID: Int64) -> [UInt8] {
            Self.encoding.key([values[rowID]!.group.databaseValue, values[rowID]!.score.databaseValue], rowID: rowID)
        }
        var oracle: [(rowID: Int64, key: [UInt8])] = (1...rows).map { index in
            let rowID = Int64(index)
            values[rowID] = (
                "g" + String(Int.random(in: 0..<3, using: &random)), Int64.random(in: 0..<9, using: &random)
            )
            return (rowID, key(rowID))
        }
        oracle.sort { Self.less($0.key, $1.key) }
        var builder = OrderedKeys.Builder()
        for row in oracle { builder.append(rowID: row.rowID, key: row.key) }
        var keys = builder.finish()
        var (insideAChunk, acrossChunks) = (0, 0)
        for step in 0..<3000 {
            let index = Int.random(in: 0..<oracle.count, using: &random)
            let rowID = oracle.remove(at: index).rowID
            switch Int.random(in: 0..<10, using: &random) {
            case 0: values[rowID]!.group = "g" + String(Int.random(in: 0..<3, using: &random))
            case 1: values[rowID]!.group += "x"  // a longer key
            case 2: values[rowID]!.score = Int64.random(in: -1_000_000...1_000_000, using: &random)
            default: values[rowID]!.score += Int64.random(in: 0..<2, using: &random) == 0 ? 1 : -1
            }
            let newKey = key(rowID)
            let oldChunk = keys.locate(index).chunk
            let position = keys.move(rowID: rowID, at: index, to: newKey)
            let expected = oracle.firstIndex { !Self.less($0.key, newKey) } ?? oracle.count
            oracle.insert((rowID, newKey), at: expected)
            #expect(position == expected, "step \(step)")
            if keys.locate(position).chunk == oldChunk { insideAChunk += 1 } else { acrossChunks += 1 }
            if step % 100 == 0 { keys._checkInvariants() }
        }
        keys._checkInvariants()
        #expect((0..<keys.count).map { keys.rowID(at: $0) } == oracle.map(\.rowID))
        #expect((0..<keys.count).map { keys.key(at: $0) } == oracle.map(\.key))
        // Both kinds ran.
        #expect(insideAChunk > 300 && acrossChunks > 300)
        print("OrderedKeysTests moves inside a chunk \(insideAChunk), across chunks \(acrossChunks)")
    }

    /// A scoreboard open for an evening: every win moves a key a little, inside its chunk or
    /// into the next, and every chunk takes its share. The keys must not come to take much
    /// more memory than the load left them in (Swift's arrays double when full, and a load
    /// leaves every chunk's arrays full).
    @Test func winsAllEveningKeepTheKeysMemoryNearWhatTheLoadLeft() {
        var random = SplitMix64(seed: 7)
        let rows = 20_000
        var values: [Int64: (group: String, score: Int64)] = [:]
        func key(_ rowID: Int64) -> [UInt8] {
            Self.encoding.key([values[rowID]!.group.databaseValue, values[rowID]!.score.databaseValue], rowID: rowID)
        }
        var order: [(rowID: Int64, key: [UInt8])] = (1...rows).map { index in
            let rowID = Int64(index)
            values[rowID] = ("g" + String(index % 20), Int64.random(in: 0..<40, using: &random))
            return (rowID, key(rowID))
        }
        order.sort { Self.less($0.key, $1.key) }
        var builder = OrderedKeys.Builder()
        for row in order { builder.append(rowID: row.rowID, key: row.key) }
        var keys = builder.finish()
        let loaded = keys._allocatedByteCount
        for _ in 0..<20_000 {
            let rowID = Int64.random(in: 1...Int64(rows), using: &random)
            let position = keys.position(of: rowID)!
            values[rowID]!.score += 1
            keys.move(rowID: rowID, at: position, to: key(rowID))
        }
        keys._checkInvariants()
        let after = keys._allocatedByteCount
        print("OrderedKeysTests allocated bytes: \(loaded) after the load, \(after) after 20,000 wins")
        #expect(Double(after) <= Double(loaded) * 1.1, "\(loaded) → \(after) bytes")
    }

    /// A progressive fetch adds ids in sort order: the first ones spread over the whole table
    /// make the locator a dictionary, which must become a flat array again once the ids fill
    /// their span (a million-row load would otherwise keep a dictionary several times as big).
    @Test func aLocatorFilledInRandomOrderEndsFlatAndFindsEveryRow() {
        var random = SplitMix64(seed: 21)
        var ids = Array(Int64(1)...20_000)
        ids.shuffle(using: &random)
        var locator = RowLocator()
        for (index, id) in ids.enumerated() {
            locator[id] = UInt32(index % 97)
            if index == 100 { #expect(!locator.isFlat, "a hundred ids over twenty thousand: sparse") }
        }
        #expect(locator.isFlat, "every id of the span: flat again")
        #expect(locator.count == ids.count)
        #expect(ids.enumerated().allSatisfy { locator[$0.element] == UInt32($0.offset % 97) })
        for id in ids.prefix(10_000) { locator[id] = nil }
        #expect(locator.count == 10_000 && ids.prefix(10_000).allSatisfy { locator[$0] == nil })
        #expect(ids.enumerated().dropFirst(10_000).allSatisfy { locator[$0.element] == UInt32($0.offset % 97) })
        locator[Int64.max - 3] = 7
        #expect(!locator.isFlat && locator[Int64.max - 3] == 7 && locator.count == 10_001, "a far id: sparse again")
    }

    /// The dictionary gives way to the flat array while it is small: once the ids fill a
    /// sixteenth of their span (checked as the count doubles). Moving a quarter of a million
    /// rows' ids at once made one step of a million-row load take 20 ms.
    @Test func aLocatorBecomesFlatOnceItsIDsFillASixteenthOfTheirSpan() {
        var random = SplitMix64(seed: 23)
        var ids = Array(Int64(1)...200_000)
        ids.shuffle(using: &random)
        var locator = RowLocator()
        for (index, id) in ids.prefix(16_384).enumerated() {
            locator[id] = UInt32(index % 1_000)
            if index == 8_191 { #expect(!locator.isFlat, "8,192 ids over 200,000: sparse") }
        }
        #expect(locator.isFlat, "16,384 ids over 200,000: flat")
        #expect(ids.prefix(16_384).enumerated().allSatisfy { locator[$0.element] == UInt32($0.offset % 1_000) })
    }

    /// A cache file's reader lays the locator out from the header's id range, then adds chunk
    /// after chunk: every id lands, also ids the range does not cover (a header that lies), and
    /// a range too wide for the count gives a dictionary.
    @Test func aLocatorLaidOutForARangeTakesChunksInsideAndOutsideIt() {
        var random = SplitMix64(seed: 22)
        var ids = Array(Int64(1_000)...Int64(4_000))
        ids.shuffle(using: &random)
        let chunks = stride(from: 0, to: ids.count, by: 700).enumerated().map { index, start in
            var chunk = OrderedKeys.Chunk(id: UInt32(index))
            chunk.rowIDs = Array(ids[start..<min(start + 700, ids.count)])
            return chunk
        }
        for (range, flat) in [(Int64(1_000)...4_000, true), (2_000...3_000, true), (1...Int64.max, false)] {
            var locator = RowLocator(expecting: ids.count, within: range)
            #expect(locator.isFlat == flat, "\(range)")
            for chunk in chunks { locator.add(chunk) }
            #expect(locator.count == ids.count, "\(range)")
            #expect(chunks.allSatisfy { chunk in chunk.rowIDs.allSatisfy { locator[$0] == chunk.id } }, "\(range)")
            #expect(locator[999] == nil && locator[4_001] == nil)
        }
    }

    /// The flat array takes 2 bytes a row while every chunk id fits in 16 bits; a chunk id that
    /// does not (a list split many times over) widens every slot, and every row is still found,
    /// whichever way the id arrives.
    @Test func aLocatorWidensItsSlotsForAChunkIDBeyondSixteenBits() {
        let wideID = UInt32(UInt16.max) + 5
        var chunk = OrderedKeys.Chunk(id: 3)
        chunk.rowIDs = Array(1...5_000)
        var wideChunk = OrderedKeys.Chunk(id: wideID)
        wideChunk.rowIDs = Array(5_001...6_000)

        var byChunk = RowLocator(expecting: 6_000, within: 1...6_000)
        byChunk.add(chunk)
        #expect(byChunk.bytesPerSlot == 2 && byChunk[2_500] == 3)
        byChunk.add(wideChunk)
        var byRow = RowLocator()
        for id in chunk.rowIDs { byRow[id] = chunk.id }
        #expect(byRow.bytesPerSlot == 2)
        for id in wideChunk.rowIDs { byRow[id] = wideChunk.id }
        for locator in [byChunk, byRow] {
            #expect(locator.isFlat && locator.bytesPerSlot == 4 && locator.count == 6_000)
            #expect(
                chunk.rowIDs.allSatisfy { locator[$0] == 3 } && wideChunk.rowIDs.allSatisfy { locator[$0] == wideID })
            #expect(locator[0] == nil && locator[6_001] == nil)
        }
        byRow[6_000] = nil
        #expect(byRow.count == 5_999 && byRow[6_000] == nil)

        // 65,535 marks an empty 2-byte slot, so it too needs 4 bytes.
        var edge = RowLocator()
        edge[1] = 1
        edge[2] = UInt32(UInt16.max)
        #expect(edge.bytesPerSlot == 4 && edge[1] == 1 && edge[2] == UInt32(UInt16.max) && edge.count == 2)
    }

    @Test func everyRowCanBeRemovedAndTheListRefilled() {
        var random = SplitMix64(seed: 9)
        var keys = OrderedKeys()
        for rowID in Int64(1)...2500 { keys.insert(rowID: rowID, key: Self.key(rowID, &random)) }
        keys._checkInvariants()
        for rowID in Int64(1)...2500 {
            let removed = keys.remove(rowID: rowID)
            #expect(removed)
        }
        keys._checkInvariants()
        #expect(keys.count == 0 && keys.chunks.isEmpty)
        keys.insert(rowID: 7, key: Self.key(7, &random))
        keys._checkInvariants()
        #expect(keys.position(of: 7) == 0)
    }
}
