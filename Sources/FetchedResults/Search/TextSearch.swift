/// A search of fetched results for the rows whose text sort value contains some characters:
/// a list's incremental search, as `/`, `n` and `N` in less and vim, over every row.
///
/// It is answered from what the controller holds anyway, the sort key of every row in order:
/// no query, no index, and no memory beyond a few bytes per chunk of about 700 rows. A value
/// matches as SQL's `instr(value, text) > 0` does on the value as its sort descriptor's collation
/// folds it: with case folding (SQLite's `NOCASE`, PostgreSQL's `caseInsensitive`) ASCII letters
/// match either case and every other character only itself; without, bytes match exactly. Only
/// text values match, never NULL, a number or a blob. While a progressive fetch is loading,
/// only the rows loaded so far are searched.
///
/// Make one with the controller's `search(sortDescriptorAt:containing:narrowing:)`. Finding the
/// next match scans from a row in one direction and stops at the first match: at most one pass
/// over the keys, which fits between two keys even at a million teams.
/// Counting every match is a full pass and more, so it is done in steps
/// (`countMatches(_:for:)`) that a user interface runs between keys; the count starts again by
/// itself when the results change under it (rows moved, inserted or deleted), and goes on over
/// rows a progressive fetch appends. Once counted, a search reads only the blocks of 64 rows
/// that hold a match to find the next one.
///
/// A search for a longer text that contains an earlier one (typing on) narrows it: only the
/// blocks where the earlier count found a match are read.
public struct TextSearch: Sendable {
    /// The characters looked for.
    public let text: String
    /// The sort descriptor whose values are searched (0 for the first).
    public let sortDescriptorIndex: Int
    package let matcher: KeyTextMatcher
    package var tally: MatchTally?
    /// The count of a search whose matches include all of this one's.
    package let hint: MatchTally?

    /// - Parameters:
    ///   - ascending: the direction of every sort descriptor.
    ///   - foldsCase: whether the searched descriptor folds ASCII letters.
    ///   - previous: an earlier search; used to skip rows when `text` contains its text.
    package init(
        text: String, sortDescriptorIndex: Int, ascending: [Bool], foldsCase: Bool, narrowing previous: TextSearch?
    ) {
        self.text = text
        self.sortDescriptorIndex = sortDescriptorIndex
        let matcher = KeyTextMatcher(
            text: text, component: sortDescriptorIndex, ascending: ascending, foldsCase: foldsCase)
        self.matcher = matcher
        hint = previous.flatMap { previous in previous.matcher.isNarrowed(by: matcher) ? previous.tally : nil }
    }
}

/// A match a ``TextSearch`` found: where, and whether the search went round the end of the
/// results to find it (from the bottom to the top going forward, from the top to the bottom
/// going back).
public struct SearchHit: Sendable, Equatable {
    public var indexPath: IndexPath
    public var wrapped: Bool

    public init(indexPath: IndexPath, wrapped: Bool) {
        self.indexPath = indexPath
        self.wrapped = wrapped
    }
}

/// How many rows match a ``TextSearch``: exact once `isComplete`, else the matches counted so far.
public struct MatchCount: Sendable, Equatable {
    public var matches: Int
    public var isComplete: Bool

    public init(matches: Int, isComplete: Bool) {
        self.matches = matches
        self.isComplete = isComplete
    }
}

/// Matches counted chunk by chunk, for the keys of one version (see ``OrderedKeys/version``):
/// how many in each chunk, and which of its blocks of ``blockSize`` rows hold them, so that a
/// later scan (`n`, or a longer text typed on) reads only those blocks.
package struct MatchTally: Sendable {
    /// Rows per block: a chunk (at most 1,024 rows) has at most 16, one bit each.
    static let blockSize = 64
    let version: UInt64
    let window: Range<Int>
    let keyCount: Int
    /// Matches in each chunk counted so far (inside the window), from the first chunk.
    var counts: [Int32] = []
    /// For each chunk counted, a bit per block that holds a match.
    var blocks: [UInt16] = []
    var total = 0

    init(version: UInt64, window: Range<Int>, keyCount: Int) {
        precondition(OrderedKeys.maximumChunkCount <= 16 * Self.blockSize, "a chunk's blocks fit in 16 bits")
        (self.version, self.window, self.keyCount) = (version, window, keyCount)
    }

    /// The tally for `keys` and `window`: this one when it still holds (rows appended after a
    /// window that reached the end leave the chunks counted as they were), else none.
    func current(for keys: OrderedKeys, window: Range<Int>) -> MatchTally? {
        guard version == keys.version, window.lowerBound == self.window.lowerBound else { return nil }
        if window.upperBound == self.window.upperBound && keys.count == keyCount { return self }
        guard self.window.upperBound == keyCount, window.upperBound >= keyCount else { return nil }
        var grown = MatchTally(version: version, window: window, keyCount: keys.count)
        (grown.counts, grown.blocks, grown.total) = (counts, blocks, total)
        return grown
    }

    /// The blocks of chunk `chunk` that may hold a match: those that did, once counted.
    func candidateBlocks(inChunk chunk: Int) -> UInt16 {
        chunk < blocks.count ? blocks[chunk] : .max
    }
}

extension ResultsState {
    /// The first match from `start` in one direction, going round the end once; nil when no row
    /// matches. Without `start`, from the first row forward (or the last row back).
    ///
    /// - Parameter includingStart: whether the row at `start` itself may be the match (a
    ///   search as it is typed), or only rows after (before) it (the next match).
    package func firstMatch(
        _ search: TextSearch, from start: IndexPath?, forward: Bool, includingStart: Bool
    ) -> SearchHit? {
        let window = layout.window
        guard !window.isEmpty else { return nil }
        let scan = MatchScan(keys: keys, window: window, search: search)
        let position: Int? = start.flatMap(layout.visiblePosition(of:)).map { window.lowerBound + $0 }
        let found: (position: Int, wrapped: Bool)?
        if forward {
            let from = position.map { includingStart ? $0 : $0 + 1 } ?? window.lowerBound
            found =
                scan.first(in: from..<window.upperBound).map { ($0, false) }
                ?? scan.first(in: window.lowerBound..<min(from, window.upperBound)).map { ($0, true) }
        } else {
            let end = position.map { includingStart ? $0 + 1 : $0 } ?? window.upperBound
            found =
                scan.last(in: window.lowerBound..<end).map { ($0, false) }
                ?? scan.last(in: max(end, window.lowerBound)..<window.upperBound).map { ($0, true) }
        }
        return found.map {
            SearchHit(indexPath: layout.indexPath(ofVisible: $0.position - window.lowerBound), wrapped: $0.wrapped)
        }
    }

    /// Counts matches chunk by chunk until `duration` has passed (at least one chunk), from
    /// where the search's count stopped, or from the start when the results changed since.
    package func countMatches(_ search: inout TextSearch, for duration: Duration) {
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        let window = layout.window
        var tally =
            search.tally?.current(for: keys, window: window)
            ?? MatchTally(version: keys.version, window: window, keyCount: keys.count)
        let scan = MatchScan(keys: keys, window: window, search: search)
        repeat {
            guard tally.counts.count < keys.chunks.count else { break }
            let (matches, blocks) = scan.count(inChunk: tally.counts.count)
            tally.counts.append(Int32(matches))
            tally.blocks.append(blocks)
            tally.total += matches
        } while clock.now < deadline
        search.tally = tally
    }

    /// The matches counted so far, and whether that is all of them.
    package func matchCount(of search: TextSearch) -> MatchCount {
        guard let tally = search.tally?.current(for: keys, window: layout.window) else {
            return MatchCount(matches: 0, isComplete: false)
        }
        return MatchCount(matches: tally.total, isComplete: tally.counts.count == keys.chunks.count)
    }

    /// The place (from 1) of the row at `indexPath` among the matches, when it matches and the
    /// count has gone past it.
    package func matchOrdinal(of indexPath: IndexPath, in search: TextSearch) -> Int? {
        let window = layout.window
        guard let visible = layout.visiblePosition(of: indexPath),
            let tally = search.tally?.current(for: keys, window: window)
        else { return nil }
        let (chunk, index) = keys.locate(window.lowerBound + visible)
        guard chunk < tally.counts.count else { return nil }
        let before = tally.counts[..<chunk].reduce(0) { $0 + Int($1) }
        let scan = MatchScan(keys: keys, window: window, search: search)
        var matches = 0
        var last: Int?
        scan.forEachMatch(inChunk: chunk, within: 0..<(index + 1)) {
            matches += 1
            last = $0
            return true
        }
        return last == index ? before + matches : nil
    }
}

/// One pass of a search over the keys inside the window, chunk by chunk, reading only the
/// blocks of rows where the counts so far (this search's, and that of a search it narrows)
/// found a match.
private struct MatchScan {
    let keys: OrderedKeys
    let window: Range<Int>
    let matcher: KeyTextMatcher
    let tallies: [MatchTally]

    init(keys: OrderedKeys, window: Range<Int>, search: TextSearch) {
        self.keys = keys
        self.window = window
        matcher = search.matcher
        tallies = [search.tally, search.hint].compactMap { $0?.current(for: keys, window: window) }
    }

    /// The indexes inside chunk `chunk` of its rows in the window.
    func indices(inChunk chunk: Int) -> Range<Int> {
        let start = keys.chunkStarts[chunk]
        let rows = start..<(start + keys.chunks[chunk].count)
        let visible = rows.clamped(to: window)
        return (visible.lowerBound - start)..<(visible.upperBound - start)
    }

    /// The runs of indexes of chunk `chunk` inside the window and `limit` worth reading, in order.
    func runs(inChunk chunk: Int, within limit: Range<Int>) -> [Range<Int>] {
        let indices = self.indices(inChunk: chunk).clamped(to: limit)
        guard !indices.isEmpty else { return [] }
        let blocks = tallies.reduce(UInt16.max) { $0 & $1.candidateBlocks(inChunk: chunk) }
        if blocks == .max { return [indices] }
        var runs: [Range<Int>] = []
        for block in 0..<16 where blocks & (1 << block) != 0 {
            let rows = (block * MatchTally.blockSize)..<((block + 1) * MatchTally.blockSize)
            let run = rows.clamped(to: indices)
            guard !run.isEmpty else { continue }
            if let last = runs.last, last.upperBound == run.lowerBound {
                runs[runs.count - 1] = last.lowerBound..<run.upperBound
            } else {
                runs.append(run)
            }
        }
        return runs
    }

    /// Calls `body` with each match among the indexes of chunk `chunk` inside `limit`, in order,
    /// until it returns false.
    func forEachMatch(inChunk chunk: Int, within limit: Range<Int>, _ body: (Int) -> Bool) {
        var going = true
        for run in runs(inChunk: chunk, within: limit) where going {
            matcher.forEachMatch(in: keys.chunks[chunk], indices: run) {
                going = body($0)
                return going
            }
        }
    }

    /// The matches in chunk `chunk`, and a bit for each block that holds one.
    func count(inChunk chunk: Int) -> (matches: Int, blocks: UInt16) {
        var matches = 0
        var blocks: UInt16 = 0
        forEachMatch(inChunk: chunk, within: 0..<keys.chunks[chunk].count) {
            matches += 1
            blocks |= 1 << ($0 / MatchTally.blockSize)
            return true
        }
        return (matches, blocks)
    }

    /// The first matching position in `range`.
    func first(in range: Range<Int>) -> Int? {
        guard !range.isEmpty else { return nil }
        var chunk = keys.locate(range.lowerBound).chunk
        while chunk < keys.chunks.count && keys.chunkStarts[chunk] < range.upperBound {
            defer { chunk += 1 }
            let start = keys.chunkStarts[chunk]
            var found: Int?
            forEachMatch(inChunk: chunk, within: (range.lowerBound - start)..<(range.upperBound - start)) {
                found = $0
                return false
            }
            if let found { return start + found }
        }
        return nil
    }

    /// The last matching position in `range`.
    func last(in range: Range<Int>) -> Int? {
        guard !range.isEmpty else { return nil }
        var chunk = keys.locate(range.upperBound - 1).chunk
        while chunk >= 0 && keys.chunkStarts[chunk] + keys.chunks[chunk].count > range.lowerBound {
            defer { chunk -= 1 }
            let start = keys.chunkStarts[chunk]
            // The scan goes forward: a block at a time from the end, so that a match close
            // before the cursor (`N`) is found without reading the whole chunk.
            let limit = (range.lowerBound - start)..<(range.upperBound - start)
            for run in runs(inChunk: chunk, within: limit).reversed() {
                var end = run.upperBound
                while end > run.lowerBound {
                    let block = max(run.lowerBound, end - MatchTally.blockSize)..<end
                    var found: Int?
                    matcher.forEachMatch(in: keys.chunks[chunk], indices: block) {
                        found = $0
                        return true
                    }
                    if let found { return start + found }
                    end = block.lowerBound
                }
            }
        }
        return nil
    }
}
