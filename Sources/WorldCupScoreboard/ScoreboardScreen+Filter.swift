import FetchedResults
import TerminalUI
import WorldCupModel

/// The filter, as htop's and k9s': `\` and text narrows the list to the teams whose name
/// contains it, as it is typed; the zones and counts follow; Enter keeps it, Esc (in the
/// filter line, or in the list while a filter is kept) shows every team again. A key only
/// edits the text: the list changes once no key waits (work for quiet, as a search's count),
/// so that typing fast into a big store changes it once, not once per key. The controller's
/// request changes live, and the move from the old list to the new one arrives as one change
/// set, so the rows are redrawn as for any other change and other writers' wins go on showing.
extension ScoreboardScreen {
    /// The filter line while it is typed; `typed` is its text not yet applied to the list.
    struct FilterPrompt {
        var text: LineEditor
        var typed: String?
    }

    /// The filter in force: its text, and how many teams there were when it was opened.
    struct TeamFilter: Equatable {
        var text: String
        var allTeams: Int
    }

    func startFilter() {
        mode = .filtering(FilterPrompt(text: LineEditor(filter?.text ?? ""), typed: nil))
    }

    func handleFilterKey(_ key: Key, _ prompt: FilterPrompt) {
        var prompt = prompt
        switch key {
        case .escape, .control("c"):
            mode = .list
            applyFilter("")
        case .enter:
            mode = .list
            if let typed = prompt.typed { applyFilter(typed) }
        default:
            let before = prompt.text.text
            prompt.text.handle(key)
            if prompt.text.text != before { prompt.typed = prompt.text.text }
            mode = .filtering(prompt)
        }
    }

    /// Whether the filter line holds text the list does not show yet.
    public var hasFilterToApply: Bool {
        if case .filtering(let prompt) = mode { prompt.typed != nil } else { false }
    }

    /// Changes the list to the filter line's text, once no key waits.
    public func applyTypedFilter() {
        guard case .filtering(var prompt) = mode, let typed = prompt.typed else { return }
        prompt.typed = nil
        mode = .filtering(prompt)
        applyFilter(typed)
    }

    /// Esc in the list while a filter is kept: every team again.
    func clearFilter() {
        applyFilter("")
    }

    /// Changes the controller's request to the teams whose name contains `text` (all: empty).
    /// A request the store refuses, or a store that is away, leaves the list as it was and
    /// says so.
    private func applyFilter(_ text: String) {
        let allTeams = filter?.allTeams ?? teamCount
        // The change set from the old list to the new one moves no team in the standings:
        // no movement marks, no "last change" for it.
        isChangingRequest = true
        defer { isChangingRequest = false }
        do {
            try controller.setFetchRequest(store.standingsRequest(nameContaining: text))
            filter = text.isEmpty ? nil : TeamFilter(text: text, allTeams: allTeams)
            tableView.setNeedsDisplay()
        } catch {
            message = "Not filtered: " + Self.sentence("\(error)")
        }
        if binding.cursorRowID.flatMap(controller.indexPath(forRowID:)) == nil {
            moveCursor { $0.moveCursorToFirst() }
        }
    }

    /// The teams the list holds now.
    var teamCount: Int {
        (0..<controller.numberOfSections).reduce(0) { $0 + controller.numberOfObjects(inSection: $1) }
    }

    /// "12 of 1,000,000 teams" while a filter is in force.
    var filterCount: String? {
        filter.map { "\(Thousands.grouped(teamCount)) of \(Thousands.grouped($0.allTeams)) teams" }
    }
}
