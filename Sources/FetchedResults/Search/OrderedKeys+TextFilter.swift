extension OrderedKeys {
    /// The rows whose keys `matcher` matches, in order, without reading the store: a
    /// ``TextFilter`` narrowing results held. `dropped` is called with each other row's id and
    /// position, in order. Each chunk keeps its id and shared prefix with the rows it keeps.
    package func keeping(
        matchesOf matcher: KeyTextMatcher, dropped: (_ rowID: Int64, _ position: Int) -> Void = { _, _ in }
    ) -> OrderedKeys {
        var kept: [Chunk] = []
        var matches: [Int] = []
        var chunkStart = 0
        for chunk in chunks {
            matches.removeAll(keepingCapacity: true)
            matcher.forEachMatch(in: chunk, indices: 0..<chunk.count) { index in
                matches.append(index)
                return true
            }
            var next = 0
            for index in matches + [chunk.count] {
                for gone in next..<index { dropped(chunk.rowIDs[gone], chunkStart + gone) }
                next = index + 1
            }
            if !matches.isEmpty { kept.append(chunk.keeping(matches)) }
            chunkStart += chunk.count
        }
        let keys = OrderedKeys(sortedChunks: kept)
        #if DEBUG
            keys._checkInvariants()
        #endif
        return keys
    }
}

extension OrderedKeys {
    /// The rows `after` matches (every row when nil), and what changes from the rows `before`
    /// matches to them: `removed` is called with the id and old position of each row only
    /// `before` matches, `inserted` with the id and new position of each row only `after`
    /// matches. A chunk every row of which is kept is shared, not copied.
    package func refiltered(
        from before: KeyTextMatcher, to after: KeyTextMatcher?,
        removed: (_ rowID: Int64, _ position: Int) -> Void, inserted: (_ rowID: Int64, _ position: Int) -> Void
    ) -> OrderedKeys {
        var kept: [Chunk] = []
        var wasShown: [Bool] = [], shown: [Int] = []
        var (oldPosition, newPosition) = (0, 0)
        for chunk in chunks {
            wasShown = Array(repeating: false, count: chunk.count)
            before.forEachMatch(in: chunk, indices: 0..<chunk.count) { index in
                wasShown[index] = true
                return true
            }
            shown.removeAll(keepingCapacity: true)
            if let after {
                after.forEachMatch(in: chunk, indices: 0..<chunk.count) { index in
                    shown.append(index)
                    return true
                }
            } else {
                shown.append(contentsOf: 0..<chunk.count)
            }
            var next = 0
            for index in 0..<chunk.count {
                let isShown = next < shown.count && shown[next] == index
                if isShown { next += 1 }
                switch (wasShown[index], isShown) {
                case (true, true): (oldPosition, newPosition) = (oldPosition + 1, newPosition + 1)
                case (true, false):
                    removed(chunk.rowIDs[index], oldPosition)
                    oldPosition += 1
                case (false, true):
                    inserted(chunk.rowIDs[index], newPosition)
                    newPosition += 1
                case (false, false): break
                }
            }
            if shown.count == chunk.count {
                kept.append(chunk)
            } else if !shown.isEmpty {
                kept.append(chunk.keeping(shown))
            }
        }
        let keys = OrderedKeys(sortedChunks: kept)
        #if DEBUG
            keys._checkInvariants()
        #endif
        return keys
    }
}
