import FetchedResults
import TerminalUI

/// Incremental search, as in less and vim: `/` and text moves the cursor to the first team whose
/// name contains it as it is typed; Enter keeps the match, Esc goes back; `n` / `N` step on.
extension ScoreboardScreen {
    /// The search line while it is typed, and where the cursor was before it.
    struct SearchPrompt {
        var query = LineEditor()
        var originRowID: Int64?
        var originScrollLine: Int
        var search: TeamSearch?
    }

    func startSearch() {
        mode = .searching(SearchPrompt(originRowID: binding.cursorRowID, originScrollLine: tableView.scrollTop))
    }

    func handleSearchKey(_ key: Key, _ prompt: SearchPrompt) {
        var prompt = prompt
        switch key {
        case .escape, .control("c"):
            mode = .list
            returnToOrigin(prompt)
        case .enter:
            mode = .list
            if let search = prompt.search, !search.matchIDs.isEmpty {
                lastSearch = search
                message = searchStatus(search)
            } else {
                returnToOrigin(prompt)
            }
        default:
            let before = prompt.query.text
            prompt.query.handle(key)
            if prompt.query.text != before { find(&prompt) }
            mode = .searching(prompt)
        }
    }

    /// Looks for the query again and moves the cursor to the first match (or back where it
    /// was, when nothing matches).
    private func find(_ prompt: inout SearchPrompt) {
        let text = prompt.query.text
        guard !text.isEmpty else {
            prompt.search = nil
            returnToOrigin(prompt)
            return
        }
        // Typing on narrows the search: when the last answer was complete, only its teams
        // can still match.
        let narrowed = prompt.search.flatMap { previous in
            !previous.hasMore && NoCase.key(text).contains(NoCase.key(previous.query)) ? previous.matchIDs : nil
        }
        do {
            let matchIDs = try store.teamIDs(withNameContaining: text, limit: TeamSearch.limit + 1, among: narrowed)
            let search = TeamSearch(query: text, matchIDs: Array(matchIDs.prefix(TeamSearch.limit)),
                                    hasMore: matchIDs.count > TeamSearch.limit)
            prompt.search = search
            if let first = search.positions(in: controller).first {
                moveCursor { $0.setCursor(TableIndex(first.indexPath)) }
            } else {
                returnToOrigin(prompt)
            }
        } catch {
            message = Self.sentence("\(error)")
        }
    }

    private func returnToOrigin(_ prompt: SearchPrompt) {
        if let rowID = prompt.originRowID, let origin = controller.indexPath(forRowID: rowID) {
            tableView.scroll(toLine: prompt.originScrollLine)
            moveCursor { $0.setCursor(TableIndex(origin)) }
        }
    }

    /// `n` / `N`: the next or previous match after the cursor, wrapping around the list.
    func stepSearch(forward: Bool) {
        guard let search = lastSearch else {
            message = "No search yet: press / and type part of a name."
            return
        }
        let positions = search.positions(in: controller)
        guard !positions.isEmpty, let cursor = tableView.cursor else {
            message = "/\(search.query): no team matches any more."
            return
        }
        let here = indexPath(cursor)
        let next = forward ? positions.first { $0.indexPath > here } : positions.last { $0.indexPath < here }
        let wrapped = next == nil
        guard let target = next ?? (forward ? positions.first : positions.last) else { return }
        moveCursor { $0.setCursor(TableIndex(target.indexPath)) }
        message = searchStatus(search) + (wrapped ? (forward ? " (from the top)" : " (from the bottom)") : "")
    }

    /// "/wen — 3 of 17": the query and the cursor's place among the matches.
    func searchStatus(_ search: TeamSearch) -> String {
        let positions = search.positions(in: controller)
        guard !positions.isEmpty else { return "/\(search.query) — no match" }
        let cursorRowID = binding.cursorRowID
        let ordinal = positions.firstIndex { $0.rowID == cursorRowID }.map { Thousands.grouped($0 + 1) } ?? "–"
        let total = Thousands.grouped(positions.count) + (search.hasMore ? "+" : "")
        return "/\(search.query) — \(ordinal) of \(total)"
    }
}

/// The teams a search found: their ids in standings order, at most ``limit`` of them.
struct TeamSearch {
    /// Enough to step through by hand; beyond it the count shows as "1,000+".
    static let limit = 1000
    var query: String
    var matchIDs: [Int64]
    var hasMore: Bool

    /// Where the matches are now (they move as wins change), in list order; matches that
    /// another writer deleted are left out.
    func positions(in controller: any AnyFetchedResultsController) -> [(rowID: Int64, indexPath: FetchedResults.IndexPath)] {
        matchIDs.compactMap { rowID in controller.indexPath(forRowID: rowID).map { (rowID, $0) } }
            .sorted { $0.indexPath < $1.indexPath }
    }
}
