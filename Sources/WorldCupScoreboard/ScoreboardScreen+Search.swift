import FetchedResults
import TerminalUI
import WorldCupModel

/// Incremental search, as in less and vim: `/` and text moves the cursor to the first team from
/// the cursor on whose name contains it, as it is typed; Enter keeps the match, Esc goes back;
/// `n` / `N` go to the next / previous match after / before the cursor, round the end with
/// vim's note. Every team is searched, in memory (the controller's ``TextSearch``), and the
/// matches are counted exactly, in steps between keys for a big store. The matched text is
/// marked in every visible row while the search is typed, and after Enter until Esc (as in
/// less, whose marks stay until they are turned off).
extension ScoreboardScreen {
    /// The search line while it is typed, and where the cursor was before it.
    struct SearchPrompt {
        var query = LineEditor()
        var originRowID: Int64?
        var originScrollLine: Int
        /// The search for the text typed so far; nil while it is empty.
        var search: TeamSearch?
    }

    func startSearch() {
        mode = .searching(SearchPrompt(originRowID: binding.cursorRowID, originScrollLine: tableView.scrollTop))
        refreshMarks()
    }

    func handleSearchKey(_ key: Key, _ prompt: SearchPrompt) {
        var prompt = prompt
        switch key {
        case .escape, .control("c"):
            mode = .list
            returnToOrigin(prompt)
        case .enter:
            mode = .list
            if let search = prompt.search {
                // Kept even when nothing matched: `n` looks again (another writer may add a match).
                lastSearch = search
                highlightsLastSearch = search.found
                if !search.found { returnToOrigin(prompt) }
                showSearchStatus()
            } else {
                returnToOrigin(prompt)
            }
        default:
            let before = prompt.query.text
            prompt.query.handle(key)
            if prompt.query.text != before { find(&prompt) }
            mode = .searching(prompt)
        }
        refreshMarks()
    }

    /// Looks for the query again from where the search started, moves the cursor to the first
    /// match (or back where it was, when nothing matches), and counts for a moment.
    private func find(_ prompt: inout SearchPrompt) {
        let text = prompt.query.text
        guard !text.isEmpty else {
            prompt.search = nil
            returnToOrigin(prompt)
            return
        }
        // Typing on narrows the search: what the last count found nothing in is not read again.
        var results = controller.search(
            sortDescriptorAt: Team.nameSortDescriptorIndex, containing: text, narrowing: prompt.search?.results)
        let origin = prompt.originRowID.flatMap(controller.indexPath(forRowID:))
        let hit = controller.indexPath(matching: results, from: origin, forward: true, includingStart: true)
        controller.countMatches(&results, for: searchCountPerKey)
        prompt.search = TeamSearch(results: results, found: hit != nil, wrapped: hit?.wrapped == true ? .toTop : nil)
        if let hit {
            moveCursor { $0.setCursor(TableIndex(hit.indexPath)) }
        } else {
            returnToOrigin(prompt)
        }
    }

    private func returnToOrigin(_ prompt: SearchPrompt) {
        if let rowID = prompt.originRowID, let origin = controller.indexPath(forRowID: rowID) {
            tableView.scroll(toLine: prompt.originScrollLine)
            moveCursor { $0.setCursor(TableIndex(origin)) }
        }
    }

    /// `n` / `N`: the next or previous match after the cursor, round the end with a note.
    func stepSearch(forward: Bool) {
        guard var search = lastSearch else {
            message = "No search yet: press / and type part of a name."
            return
        }
        let cursor = tableView.cursor.map(indexPath)
        let hit = controller.indexPath(matching: search.results, from: cursor, forward: forward, includingStart: false)
        search.found = hit != nil
        search.wrapped = hit?.wrapped == true ? (forward ? .toTop : .toBottom) : nil
        if let hit { moveCursor { $0.setCursor(TableIndex(hit.indexPath)) } }
        if !controller.matchCount(of: search.results).isComplete {
            controller.countMatches(&search.results, for: searchCountPerKey)
        }
        lastSearch = search
        highlightsLastSearch = search.found
        showSearchStatus()
        refreshMarks()
    }

    /// Whether the status line says what the last search found ("/wen — 3 of 17", "no match").
    var showsSearchStatus: Bool { message != nil && message == shownSearchStatus }

    /// Esc after a search: its marks go (its status went with the key), the search stays for
    /// `n` and `N`.
    func clearSearchMarks() {
        highlightsLastSearch = false
        refreshMarks()
    }

    private func showSearchStatus() {
        message = lastSearch.map(searchStatus)
        shownSearchStatus = message
    }

    /// "/wen — 3 of 17": the query and the cursor's place among the matches; "3 of 1,200+
    /// (counting…)" while they are counted; what the search covers while the standings load;
    /// and vim's note when it went round the end.
    func searchStatus(_ search: TeamSearch) -> String {
        let query = "/" + search.results.text
        let teams = Thousands.grouped(tableView.cursorPosition?.count ?? 0)
        let loaded = controller.hasRowsToLoad ? " in the \(teams) teams loaded so far" : ""
        guard search.found else { return query + " — no match" + loaded }
        let count = controller.matchCount(of: search.results)
        let ordinal = binding.cursorRowID.flatMap(controller.indexPath(forRowID:))
            .flatMap { controller.matchOrdinal(of: $0, in: search.results) }
        let place = ordinal.map(Thousands.grouped) ?? (count.isComplete ? "–" : "?")
        let total = Thousands.grouped(count.matches) + (count.isComplete ? "" : "+ (counting…)")
        let note =
            switch search.wrapped {
            case .toTop?: " · search hit BOTTOM, continuing at TOP"
            case .toBottom?: " · search hit TOP, continuing at BOTTOM"
            case nil: ""
            }
        return "\(query) — \(place) of \(total)\(loaded)\(note)"
    }

    // MARK: - Counting between keys

    /// The search on screen: the one typed, or the last one while it is marked or stated.
    private var shownSearch: TeamSearch? {
        if case .searching(let prompt) = mode { return prompt.search }
        guard let lastSearch, lastSearch.found else { return nil }
        return highlightsLastSearch || showsSearchStatus ? lastSearch : nil
    }

    /// Whether the search on screen has matches left to count (a step between keys does it).
    public var hasSearchToCount: Bool {
        shownSearch.map { !controller.matchCount(of: $0.results).isComplete } ?? false
    }

    /// Counts the shown search's matches for a few milliseconds, and updates what the status
    /// line says of them.
    public func countSearchStep() {
        if case .searching(var prompt) = mode, var search = prompt.search {
            controller.countMatches(&search.results, for: searchCountStep)
            prompt.search = search
            mode = .searching(prompt)
        } else if var search = lastSearch {
            controller.countMatches(&search.results, for: searchCountStep)
            lastSearch = search
            if showsSearchStatus { showSearchStatus() }
        }
    }

    // MARK: - Marks

    /// The text whose matches are marked in the rows: the one typed, or the last search's from
    /// Enter (or `n`, `N`) until Esc.
    var markedSearchText: String? {
        if case .searching(let prompt) = mode { return prompt.query.text.isEmpty ? nil : prompt.query.text }
        return highlightsLastSearch ? lastSearch?.results.text : nil
    }

    /// Redraws the rows when the marked text changed.
    func refreshMarks() {
        let text = markedSearchText
        guard text != drawnMarks else { return }
        drawnMarks = text
        tableView.setNeedsDisplay()
    }

    /// The columns of a team's row that show the marked text in its name.
    func searchMarks(at index: TableIndex, width: Int) -> [Range<Int>] {
        guard let text = markedSearchText,
            let team = try? controller.objectIfPresent(at: indexPath(index))
        else { return [] }
        return renderer.nameColumns(
            ofBytes: TeamSearch.matches(of: text, in: team.teamName), for: team,
            rank: shownRank(of: team, at: index), rankColumns: rankColumns, width: width)
    }
}

/// A search of the team names, and how the cursor reached its match.
struct TeamSearch {
    /// Which way a search went round the end of the list.
    enum Wrap { case toTop, toBottom }

    var results: TextSearch
    /// Whether the last look found a match.
    var found: Bool
    /// Whether it went round the end to find it, and which way.
    var wrapped: Wrap?

    /// Where `text` occurs in `name` as the store compares (ASCII letters in either case): UTF-8
    /// offsets, left to right, not overlapping (as less marks them).
    static func matches(of text: String, in name: String) -> [Range<Int>] {
        let name = Array(NoCase.key(name).utf8), text = Array(NoCase.key(text).utf8)
        guard !text.isEmpty else { return [] }
        var found: [Range<Int>] = []
        var start = 0
        while start + text.count <= name.count {
            if name[start..<(start + text.count)].elementsEqual(text) {
                found.append(start..<(start + text.count))
                start += text.count
            } else {
                start += 1
            }
        }
        return found
    }
}
