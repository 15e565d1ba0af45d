extension ControllerCore {
    /// A search for the rows whose value of sort descriptor `index` contains `text`, compared
    /// as that descriptor's collation compares (`NOCASE`: ASCII letters in either case), over
    /// the rows held in memory: see ``TextSearch``.
    ///
    /// - Parameters:
    ///   - index: the sort descriptor whose values are searched (0 for the first).
    ///   - text: the characters looked for.
    ///   - previous: the search this one follows as the user types on, if any: when `text`
    ///     contains its text, only the blocks of rows where it found matches are read.
    func search(
        sortDescriptorAt index: Int, containing text: String, narrowing previous: TextSearch? = nil
    ) -> TextSearch {
        let descriptors = fetchRequest.sortDescriptors
        return TextSearch(
            text: text, sortDescriptorIndex: index, ascending: descriptors.map(\.ascending),
            foldsCase: descriptors[index].foldsCase, narrowing: previous)
    }

    /// The first row matching `search` from `start` (nil: from the first row forward, the last
    /// back), going round the end of the results once; nil when none matches.
    ///
    /// - Parameters:
    ///   - search: what to look for.
    ///   - start: the row to look from.
    ///   - forward: down the results (`n`), or up (`N`).
    ///   - includingStart: whether the row at `start` may be the match (as a search is typed),
    ///     or only a row after it (before it, going back): the next match.
    func indexPath(
        matching search: TextSearch, from start: IndexPath?, forward: Bool = true, includingStart: Bool = false
    ) -> SearchHit? {
        exclusive("indexPath(matching:from:forward:includingStart:)") {
            state?.firstMatch(search, from: start, forward: forward, includingStart: includingStart)
        }
    }

    /// Counts `search`'s matches for about `duration` (one chunk of rows at least), going on
    /// from where its count stopped; see ``matchCount(of:)``.
    func countMatches(_ search: inout TextSearch, for duration: Duration) {
        exclusive("countMatches(_:for:)") { state?.countMatches(&search, for: duration) }
    }

    /// The matches of `search` counted so far, and whether the count is complete (it starts
    /// again when the results changed since; see ``countMatches(_:for:)``). Before a fetch:
    /// none, and complete.
    func matchCount(of search: TextSearch) -> MatchCount {
        exclusive("matchCount(of:)") { state?.matchCount(of: search) ?? MatchCount(matches: 0, isComplete: true) }
    }

    /// The place (from 1) of the row at `indexPath` among `search`'s matches, when that row
    /// matches and the count has gone past it.
    func matchOrdinal(of indexPath: IndexPath, in search: TextSearch) -> Int? {
        exclusive("matchOrdinal(of:in:)") { state?.matchOrdinal(of: indexPath, in: search) }
    }
}
