import FetchedResults
import Foundation
import TerminalUI
import WorldCupModel

/// The World Cup scoreboard: a title, column headings, the teams grouped by zone, and a status
/// line; help and the Add Team dialog as boxes over the dimmed list.
///
/// Data flows one way: a key becomes an action, the action a store write, the commit a change
/// set from the results controller, and the change set a batch update of the table view, which
/// redraws only the rows that changed. Nothing here touches the list directly after a write.
///
/// The parts live in their own files: keys and moves here, writes and undo in `+Writes`,
/// search in `+Search`, the filter in `+Filter`, drawing in `+Drawing`.
public final class ScoreboardScreen: TableViewDataSource {
    let store: any ScoreStore
    let surface: any Surface
    let renderer: TeamRowRenderer
    let controller: FetchedResultsController<Team>
    /// The list, public so a host can read which rows it redrew.
    public let tableView = TableView()
    let binding: ResultsTableBinding

    /// After the hidden "shake" (S), + opens the Add Team dialog.
    public private(set) var isShaken = false
    var mode = Mode.list
    /// A transient message for the status line; the next key clears it.
    var message: String?
    var undoStack: [UndoEntry] = []
    /// What undo took back, newest last, until this scoreboard makes a new change.
    var redoStack: [UndoEntry] = []
    /// Scores whose commit reply was lost with the connection: done again, with their keys,
    /// at the first look after the store is back (a key counts once however often it is sent).
    var scoresInDoubt: [ScoreboardWrite.Score] = []
    /// When scores in doubt were last sent again and found no server taking writes: they are
    /// sent again after ``doubtRetryInterval``, not at every look.
    var doubtStillUnreachableAt: ContinuousClock.Instant?
    static let doubtRetryInterval = Duration.seconds(1)
    /// The connection problem the status line shows (nil: none), to notice when it changes.
    var shownConnectionProblem: String?
    /// The replica's lag the status line shows, in whole seconds (nil: none worth saying).
    var shownReplicaLag: Int?
    /// Screen-reader mode (see `+ScreenReader`).
    public var isScreenReaderMode = false {
        didSet { tableView.cursorMark = isScreenReaderMode ? Self.selectionMark : nil }
    }
    var announcer = ChangeAnnouncer()
    /// The last sentence said on the status line, which the next one may replace.
    var lastAnnouncement: String?
    /// The filter in force (nil: every team is listed).
    var filter: TeamFilter?
    /// The controller's request is being changed (the filter): its change set is not news.
    var isChangingRequest = false
    /// The search that `n` and `N` step through (kept when it found nothing: `n` looks again).
    var lastSearch: TeamSearch?
    /// Whether the last search's matches are marked in the rows: from Enter until Esc.
    var highlightsLastSearch = false
    /// The search text the rows were drawn with marks of, to redraw them when it changes.
    var drawnMarks: String?
    /// The search status put on the status line, to update it as the count goes on.
    var shownSearchStatus: String?
    /// How long a search key counts matches before its frame, and a step between keys:
    /// at least one chunk of rows each (zero: one chunk, so a count shows its progress).
    var searchCountPerKey = Duration.milliseconds(1)
    var searchCountStep = Duration.milliseconds(4)
    /// Rows changed by other writers, shown highlighted for a moment.
    var highlights = RecentChanges()
    /// How long a row another writer changed stays highlighted (1.5 s; the README's pictures
    /// keep it for their whole run, so that no picture depends on how fast it was taken).
    public var changeHighlightDuration: Duration {
        get { highlights.duration }
        set { highlights.duration = newValue }
    }
    /// While other writers' changes are applied, when they were seen: their rows are
    /// highlighted from then.
    var externalChangesShownAt: ContinuousClock.Instant?
    /// What the title, heading and status rows show, so unchanged rows are not drawn again.
    var drawn = DrawnRows()
    /// Sizes the steps of a progressive load.
    var loadPacer = LoadPacer()
    /// Rows the status line takes: one, or a few while a long message wraps over them.
    var statusRows = 1
    /// Digits of the rank column: enough for the largest zone.
    var rankColumns = 2
    /// Ranks found since the last change set, by zone and wins (see ``rank(of:at:)``).
    var ranks: [RankKey: Int] = [:]
    /// How teams just moved, shown beside their ranks for a while.
    var movements = MovementMarks()
    /// When the last change set came (wall time, for the title line); nil before the first:
    /// loading the standings is not a change of them.
    var lastChange: Date?
    /// While a write or a look runs, the instant it runs at: the marks of its change set last
    /// from then.
    var changesSeenAt: ContinuousClock.Instant?
    /// While a step of the load runs: its rows arrive as inserts, which are no news.
    var isLoadingStep = false
    /// Writes since the last checkpoint, so the loop knows whether to run one.
    public internal(set) var writesSinceCheckpoint = 0
    /// Called after each change this scoreboard committed and told the user about: the
    /// session's audit log and statistics.
    public var didCommit: (CommittedChange) -> Void = { _ in }

    /// What the keys go to.
    enum Mode {
        case list
        case help
        case dialog(AddTeamDialog)
        case searching(SearchPrompt)
        case filtering(FilterPrompt)
        /// After `'`: the next letter picks a zone by its index title.
        case zoneLetter
    }

    /// - Parameter cacheDirectory: where the standings' cache lives between launches, or nil.
    public init(
        store: any ScoreStore, surface: any Surface, renderer: TeamRowRenderer, cacheDirectory: String? = nil
    ) throws {
        self.store = store
        self.surface = surface
        self.renderer = renderer
        controller = store.standingsController(cacheDirectory: cacheDirectory)
        binding = ResultsTableBinding(results: controller, tableView: tableView)
        controller.delegate = binding
        try controller.performFetch(firstRows: LoadPacer.firstRows)
        tableView.dataSource = self
        rankColumns = currentRankColumns
        layout()
        tableView.reloadData()
        followCursor()
        // The controller keeps the last standings and says why it could not follow a commit.
        binding.reportFailure = { [unowned self] error in message = Self.sentence("\(error)") }
        binding.didChangeRows = { [unowned self] rows in didChangeRows(rows) }
    }

    // MARK: - Layout

    var titleRow: Int? { surface.rows >= 3 ? 0 : nil }
    var headingRow: Int? { surface.rows >= 8 ? 1 : nil }
    /// The rows above the list: the title and the column headings, when they fit.
    var rowsAboveList: Int { (titleRow == nil ? 0 : 1) + (headingRow == nil ? 0 : 1) }
    /// The status line's last row (its only one unless a long message wraps).
    var statusRow: Int { surface.rows - 1 }

    /// Fits everything to the surface's size (at start, after a resize, and to repaint).
    public func layout() {
        fitList()
        tableView.setNeedsDisplay()
        drawn = DrawnRows()
    }

    /// Gives the list the rows between the headings and the status line, which takes
    /// `statusRows` rows.
    func fitList() {
        tableView.setFrame(
            top: rowsAboveList, height: max(0, surface.rows - rowsAboveList - statusRows),
            width: surface.columns)
    }

    private var currentRankColumns: Int {
        let largest = (0..<controller.numberOfSections).map(controller.numberOfObjects(inSection:)).max() ?? 0
        return TeamRowRenderer.rankColumns(forLargestZone: largest)
    }

    private func didChangeRows(_ rows: ResultsTableBinding.ChangedRows) {
        ranks = [:]
        if let externalChangesShownAt { highlights.add(rows.changed, at: externalChangesShownAt) }
        if !isLoadingStep, !isChangingRequest {
            lastChange = Date()
            announce(rows, at: changesSeenAt ?? .now)
            // A filtered list shows no ranks to measure movement by.
            if filter == nil { markMovements(rows, at: changesSeenAt ?? .now) }
        }
        redrawRerankedRows()
        let columns = currentRankColumns
        if columns != rankColumns {
            rankColumns = columns
            tableView.setNeedsDisplay()
            drawn.heading = nil
        }
    }

    // MARK: - Keys

    /// Handles one key and says what the event loop should do next: ``ScoreboardEffect/redraw``
    /// when the next frame is all a key needs, or a write, a repaint, a suspend or the end.
    public func handle(_ key: Key) -> ScoreboardEffect {
        // Read before the message goes: Esc right after a search clears what the search left
        // on screen, marks or a status line that says it found nothing.
        let searchShown = highlightsLastSearch || showsSearchStatus
        message = nil
        switch key {
        case .resize:
            layout()
            return .redraw
        case .control("z"):
            return .suspend
        case .control("l"):
            layout()
            return .repaint
        default:
            break
        }
        switch mode {
        case .list: return handleListKey(key, searchShown: searchShown)
        case .help:
            mode = .list
        case .dialog(let dialog):
            return handleDialogKey(key, dialog)
        case .searching(let prompt):
            handleSearchKey(key, prompt)
        case .filtering(let prompt):
            handleFilterKey(key, prompt)
        case .zoneLetter:
            mode = .list
            if case .character(let letter) = key { jumpToZone(indexTitle: String(letter).uppercased()) }
        }
        return .redraw
    }

    private func handleListKey(_ key: Key, searchShown: Bool) -> ScoreboardEffect {
        switch key {
        case .escape where searchShown:
            clearSearchMarks()
        case .escape where filter != nil:
            clearFilter()
        case .character("q"), .escape, .control("c"):
            return .quit(.quit)
        case .up, .character("k"): moveCursor { $0.moveCursor(by: -1) }
        case .down, .character("j"): moveCursor { $0.moveCursor(by: 1) }
        case .wheelUp: moveCursor { $0.moveCursor(by: -3) }
        case .wheelDown: moveCursor { $0.moveCursor(by: 3) }
        case .pageUp, .control("b"): moveCursor { $0.pageUp() }
        case .pageDown, .control("f"): moveCursor { $0.pageDown() }
        case .control("u"): moveCursor { $0.halfPageUp() }
        case .control("d"): moveCursor { $0.halfPageDown() }
        case .home, .character("g"): moveCursor { $0.moveCursorToFirst() }
        case .end, .character("G"): moveCursor { $0.moveCursorToLast() }
        case .character("]"), .tab: jumpZone(by: 1)
        case .character("["), .backTab: jumpZone(by: -1)
        case .character("'"):
            mode = .zoneLetter
        case .enter, .character(" "): return addWinUnderCursor()
        case let .mouseClick(row, _):
            // As in htop and lazygit: a click selects; a click on the selected team (the
            // second click of a double click too) adds its win.
            if let index = tableView.index(atScreenRow: row) {
                if index == tableView.cursor { return addWinUnderCursor() }
                moveCursor { $0.setCursor(index) }
            }
        case .character("/"): startSearch()
        case .character("\\"): startFilter()
        case .character("n"): stepSearch(forward: true)
        case .character("N"): stepSearch(forward: false)
        case .character("u"): return undo()
        case .control("r"): return redo()
        case .character("?"): mode = .help
        case .character("S"):
            isShaken = true
            message = "Shaken: + now adds a team."
        case .character("+") where isShaken:
            mode = .dialog(AddTeamDialog(zones: (0..<controller.numberOfSections).map(controller.sectionName(at:))))
        default:
            break
        }
        return .redraw
    }

    func moveCursor(_ move: (TableView) -> Void) {
        move(tableView)
        followCursor()
    }

    /// The cursor follows a team, not a place: remember which one it is on.
    func followCursor() {
        binding.cursorRowID = tableView.cursor.map { controller.rowID(at: indexPath($0)) }
    }

    /// The team under the cursor, if it is on screen (on a tiny screen it may not be).
    var visibleCursorRowID: Int64? {
        tableView.cursorScreenRow == nil ? nil : binding.cursorRowID
    }

    // MARK: - Zones

    private func jumpZone(by step: Int) {
        let count = controller.numberOfSections
        guard count > 0 else { return }
        let current = tableView.cursor?.section ?? 0
        let target = ((current + step) % count + count) % count
        moveCursor { $0.showSection(target) }
    }

    /// The tutorial's section index in a terminal: `'` then a zone's first letter. As in file
    /// managers, the letter goes to the first zone with that title after the cursor's zone,
    /// round the end: the same letter again goes on to the next such zone (Africa, Asia, …).
    private func jumpToZone(indexTitle: String) {
        guard controller.sectionIndexTitles.contains(indexTitle) else {
            message =
                "No zone starts with \(indexTitle) "
                + "(zones start with \(controller.sectionIndexTitles.joined(separator: " ")))."
            return
        }
        let count = controller.numberOfSections
        let current = tableView.cursor?.section ?? count - 1
        // Not only the next section: names that differ in more than ASCII case ("émeraude",
        // "Éire") share a title without sorting together.
        let later = (current + 1..<count).first { sectionIndexTitle(ofSection: $0) == indexTitle }
        let section = later ?? controller.section(forSectionIndexTitle: indexTitle, at: 0)
        moveCursor { $0.showSection(section) }
    }

    /// A section's index title, by the controller's rule (the name's first letter, capitalised).
    private func sectionIndexTitle(ofSection section: Int) -> String? {
        controller.sectionName(at: section).first.map { String($0).uppercased() }
    }

    // MARK: - Table data source

    public func numberOfSections() -> Int { controller.numberOfSections }

    public func numberOfRows(inSection section: Int) -> Int { controller.numberOfObjects(inSection: section) }

    public func headerText(forSection section: Int) -> String {
        let count = controller.numberOfObjects(inSection: section)
        return "\(controller.sectionName(at: section)) (\(Thousands.grouped(count)) team\(count == 1 ? "" : "s"))"
    }

    /// A row the store cannot give now draws empty (``readRowsOnScreen()`` said why), as does
    /// a team another process just deleted, until its deletion arrives (next tick).
    public func rowText(at index: TableIndex, width: Int) -> String {
        guard let team = try? controller.objectIfPresent(at: indexPath(index)) else { return "" }
        guard let rank = shownRank(of: team, at: index) else {
            return renderer.text(for: team, rank: nil, rankColumns: rankColumns, width: width)
        }
        return renderer.text(
            for: team, rank: rank,
            movement: movements.movement(of: controller.rowID(at: indexPath(index))), rankColumns: rankColumns,
            width: width)
    }

    /// Reads the teams on screen before a frame draws them, and remembers what each row will
    /// show (its team's wins and rank), to measure the team's next movement from. When the store
    /// cannot give a team (its part of the standings unreadable), the status line says why.
    /// Done here, not while drawing, so that a frame reads the state and changes nothing.
    public func readRowsOnScreen() {
        fitStatusRows()
        for row in tableView.top..<tableView.top + tableView.height {
            guard let index = tableView.index(atScreenRow: row) else { continue }
            let team: Team?
            do {
                team = try controller.objectIfPresent(at: indexPath(index))
            } catch {
                message = Self.sentence("\(error)")
                return
            }
            if let team, let rank = shownRank(of: team, at: index) {
                movements.see(team, rank: rank, rowID: controller.rowID(at: indexPath(index)))
            }
        }
    }

    /// Every other team of a zone striped (the 2nd, the 4th…), so the eye follows a wide row
    /// from the name to its wins; a row another writer just changed flashed.
    public func rowStyle(at index: TableIndex) -> TextStyle {
        var style: TextStyle = index.row % 2 == 1 ? [.stripe] : []
        if highlights.contains(controller.rowID(at: indexPath(index))) { style.insert(.flash) }
        return style
    }

    public func rowMarks(at index: TableIndex, width: Int) -> [Range<Int>] { searchMarks(at: index, width: width) }

    func indexPath(_ index: TableIndex) -> IndexPath {
        IndexPath(row: index.row, section: index.section)
    }

    /// Why the standings may be behind the store ("reconnecting…"), or nil while they follow it.
    var connectionProblem: String? {
        guard case let .reconnecting(_, lastError) = controller.connectionState else { return nil }
        let reason = lastError.prefix { $0 != "\n" }
        return "reconnecting to \(store.displayName)…" + (reason.isEmpty ? "" : " (\(reason))")
    }

    /// How many whole seconds the standby the standings come from is behind its primary, from
    /// one second on (less is the time a look takes anyway), or nil.
    var replicaLagSeconds: Int? {
        guard let lag = controller.replicaLag, lag >= .seconds(1) else { return nil }
        return Int(lag.components.seconds)
    }

    /// A store message as a sentence for the screen ("a team named…" → "A team named…").
    static func sentence(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}
