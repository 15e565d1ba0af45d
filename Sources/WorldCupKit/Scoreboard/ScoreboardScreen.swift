import FetchedResults
import Foundation
import TerminalUI

/// The World Cup scoreboard: a title, the teams grouped by zone, and a status line.
///
/// Data flows one way: a key becomes an action, the action a store write, the commit a change
/// set from the results controller, and the change set a batch update of the table view, which
/// redraws only the rows that changed. Nothing here touches the list directly after a write.
public final class ScoreboardScreen: TableViewDataSource {
    private let store: TeamStore
    private let surface: any Surface
    private let renderer: TeamRowRenderer
    private let controller: FetchedResultsController<Team>
    /// The list; exposed so tests can read what it redrew.
    public let tableView = TableView()
    private let binding: ResultsTableBinding<Team>

    /// After the hidden "shake" (S), + opens the Add Team dialog.
    public private(set) var isShaken = false
    private var dialog: AddTeamDialog?
    private var showsHelp = false
    private var message: String?
    private var undoStack: [UndoEntry] = []
    private var drawnTitle: String?
    private var drawnStatus: String?
    private var overlayWasShown = false
    /// Writes since the last checkpoint, so the idle tick knows whether to run one.
    public private(set) var writesSinceCheckpoint = 0
    /// Called after each win is committed (tests count committed wins with it).
    public var didCommitWin: (Team) -> Void = { _ in }

    private enum UndoEntry {
        case win(teamID: Int64, name: String)
        /// The team as this scoreboard added it: undo removes it only while it is still so.
        case added(Team)
    }

    /// - Parameter cacheDirectory: where the standings' cache lives between launches, or nil.
    public init(store: TeamStore, surface: any Surface, renderer: TeamRowRenderer, cacheDirectory: String? = nil) throws {
        self.store = store
        self.surface = surface
        self.renderer = renderer
        controller = store.standingsController(cacheDirectory: cacheDirectory)
        binding = ResultsTableBinding(controller: controller, tableView: tableView)
        controller.delegate = binding
        try controller.performFetch()
        tableView.dataSource = self
        layout()
        tableView.reloadData()
        binding.cursorRowID = tableView.cursor.map { controller.rowID(at: indexPath($0)) }
        // The controller keeps the last standings and says why it could not follow a commit.
        binding.didFail = { [unowned self] error in message = Self.sentence("\(error)") }
    }

    // MARK: - Layout

    private var hasTitle: Bool { surface.rows >= 3 }
    private var statusRow: Int { surface.rows - 1 }

    /// Fits everything to the surface's size (at start and after a resize).
    public func layout() {
        let top = hasTitle ? 1 : 0
        tableView.setFrame(top: top, height: max(0, surface.rows - top - 1), width: surface.columns)
        tableView.setNeedsDisplay()
        drawnTitle = nil
        drawnStatus = nil
    }

    // MARK: - Keys

    /// Handles one key; returns false when the user asked to quit.
    public func handle(_ key: Key) -> Bool {
        message = nil
        if key == .resize {
            layout()
            return true
        }
        if dialog != nil {
            handleDialogKey(key)
            return true
        }
        if showsHelp {
            showsHelp = false
            return true
        }
        switch key {
        case .character("q"), .escape, .control("c"):
            return false
        case .up, .character("k"): moveCursor { $0.moveCursor(by: -1) }
        case .down, .character("j"): moveCursor { $0.moveCursor(by: 1) }
        case .wheelUp: moveCursor { $0.moveCursor(by: -3) }
        case .wheelDown: moveCursor { $0.moveCursor(by: 3) }
        case .pageUp: moveCursor { $0.pageUp() }
        case .pageDown: moveCursor { $0.pageDown() }
        case .home, .character("g"): moveCursor { $0.moveCursorToFirst() }
        case .end, .character("G"): moveCursor { $0.moveCursorToLast() }
        case .enter, .character(" "): addWinUnderCursor()
        case let .mouseClick(row, _):
            if let index = tableView.index(atScreenRow: row) {
                moveCursor { $0.setCursor(index) }
                addWinUnderCursor()
            }
        case .character("u"): undo()
        case .character("?"): showsHelp = true
        case .character("S"):
            isShaken = true
        case .character("+") where isShaken:
            dialog = AddTeamDialog()
        default:
            break
        }
        return true
    }

    private func moveCursor(_ move: (TableView) -> Void) {
        move(tableView)
        binding.cursorRowID = tableView.cursor.map { controller.rowID(at: indexPath($0)) }
        // The controller keeps the last standings and says why it could not follow a commit.
        binding.didFail = { [unowned self] error in message = Self.sentence("\(error)") }
    }

    private func addWinUnderCursor() {
        guard let teamID = binding.cursorRowID else { return }
        perform {
            if let team = try store.addWin(teamID: teamID) {
                undoStack.append(.win(teamID: teamID, name: team.teamName))
                didCommitWin(team)
            }
        }
    }

    /// Takes back this scoreboard's last change, never what others did since: a change that
    /// someone else has built on is kept, and the status line says why.
    private func undo() {
        guard let entry = undoStack.popLast() else {
            message = "Nothing to undo."
            return
        }
        perform {
            switch entry {
            case let .win(teamID, name):
                switch try store.takeBackWin(teamID: teamID) {
                case .undone: message = "Took back a win from \(name)."
                case .teamGone: message = "\(name) is no longer in the store; nothing to undo."
                case .changedByOthers: message = "\(name) has no win left to take back (changed elsewhere); not undone."
                }
            case let .added(team):
                switch try store.removeAddedTeam(team) {
                case .undone: message = "Removed \(team.teamName)."
                case .teamGone: message = "\(team.teamName) is no longer in the store; nothing to undo."
                case let .changedByOthers(now):
                    message = "\(now.teamName) was changed elsewhere since it was added (\(now.wins) win\(now.wins == 1 ? "" : "s")); not undone, it stays."
                }
            }
        }
    }

    private func handleDialogKey(_ key: Key) {
        guard var current = dialog else { return }
        switch current.handle(key) {
        case .editing:
            dialog = current
        case .cancelled:
            dialog = nil
        case let .submitted(name, zone):
            do {
                let team = try store.addTeam(name: name, zone: zone)
                writesSinceCheckpoint += 1
                dialog = nil
                undoStack.append(.added(team))
                message = "Added \(team.teamName)"
                moveCursor { $0.setCursor(controller.indexPath(forRowID: team.id!).map(TableIndex.init)) }
            } catch let error as WorldCupError {
                current.problem = Self.sentence(error.description)
                dialog = current
            } catch {
                current.problem = "\(error)"
                dialog = current
            }
        }
    }

    /// Runs a store write; a failure becomes a message on the status line, never a crash.
    private func perform(_ write: () throws -> Void) {
        do {
            try write()
            writesSinceCheckpoint += 1
        } catch {
            message = Self.sentence("\(error)")
        }
    }

    /// A store message as a sentence for the screen ("a team named…" → "A team named…").
    private static func sentence(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }

    /// Shows what other processes committed since the last look (the idle tick calls this);
    /// returns whether anything changed.
    @discardableResult
    public func showExternalChanges() -> Bool {
        do {
            return try controller.processExternalChanges()
        } catch {
            message = Self.sentence("\(error)")
            return true
        }
    }

    /// Runs a checkpoint when writes are waiting in the log (the idle tick calls this).
    public func checkpointIfNeeded() {
        guard writesSinceCheckpoint > 0 else { return }
        store.checkpoint()
        writesSinceCheckpoint = 0
    }

    /// Where the standings came from at launch: "cache" or "store".
    public var fetchSource: String { controller.lastFetchSource == .cache ? "cache" : "store" }

    /// Writes the standings' cache if it changed. A cache that cannot be written only makes
    /// the next launch slower: the scoreboard says so and goes on.
    public func saveCacheIfNeeded() {
        do {
            try controller.saveCache()
        } catch {
            message = "Could not save the standings cache (the next start will be slower): \(error)"
        }
    }

    // MARK: - Drawing

    /// Draws what changed and flushes one frame.
    public func render() {
        let overlayShown = showsHelp || dialog != nil
        if overlayWasShown && !overlayShown { tableView.setNeedsDisplay() }
        overlayWasShown = overlayShown
        if hasTitle { drawTitle() }
        if overlayShown {
            drawOverlay()
        } else {
            tableView.draw(on: surface)
            surface.placeCursor(row: tableView.cursorScreenRow ?? statusRow, column: 0)
        }
        drawStatus()
        if let dialog { placeDialogCursor(dialog) }
        surface.present()
    }

    private func drawTitle() {
        let teams = (0..<controller.numberOfSections).reduce(0) { $0 + controller.numberOfObjects(inSection: $1) }
        let zones = controller.numberOfSections
        let title = "World Cup — \(teams) team\(teams == 1 ? "" : "s") in \(zones) zone\(zones == 1 ? "" : "s")"
        guard title != drawnTitle else { return }
        surface.drawLine(0, title, style: [.bold])
        drawnTitle = title
    }

    private var hints: String {
        if dialog != nil { return "Enter save · Esc cancel · Tab next field" }
        if showsHelp { return "Any key closes the help" }
        return "↑↓ move · Enter +1 win · u undo" + (isShaken ? " · + add team" : "") + " · ? help · q quit"
    }

    private func drawStatus() {
        let status = message ?? hints
        guard status != drawnStatus, surface.rows >= 2 else { return }
        surface.drawLine(statusRow, status, style: message == nil ? [.dim] : [.bold])
        drawnStatus = status
    }

    private var overlayLines: [String] {
        if let dialog {
            return [
                "Secret Team — add a new team",
                "",
                "Team Name:       " + dialog.name.visible(width: fieldWidth).text,
                "Qualifying Zone: " + dialog.zone.visible(width: fieldWidth).text,
                "",
                dialog.problem ?? "",
            ]
        }
        return ["Keys", "",
                "↑ k  ↓ j          move between teams",
                "PgUp PgDn         page up / down",
                "Home g  End G     first / last team",
                "Enter Space click add a win",
                "u                 undo the last change"]
            + (isShaken ? ["+                 add a team"] : [])
            + ["?                 this help",
               "q Esc Ctrl-C      quit"]
    }

    private static let labelColumns = 17
    private var fieldWidth: Int { max(1, surface.columns - Self.labelColumns - 1) }

    private func overlayTop(_ lines: [String]) -> Int {
        let band = tableView.top
        return band + max(0, (tableView.height - lines.count) / 2)
    }

    private func drawOverlay() {
        let lines = overlayLines
        let first = overlayTop(lines)
        for row in tableView.top..<(tableView.top + tableView.height) {
            let index = row - first
            let text = lines.indices.contains(index) ? "  " + lines[index] : ""
            surface.drawLine(row, text, style: index == 0 ? [.bold] : [])
        }
    }

    private func placeDialogCursor(_ dialog: AddTeamDialog) {
        let lines = overlayLines
        let row = overlayTop(lines) + (dialog.focus == .name ? 2 : 3)
        let editor = dialog.focus == .name ? dialog.name : dialog.zone
        surface.placeCursor(row: row, column: 2 + Self.labelColumns + editor.visible(width: fieldWidth).cursorColumn)
    }

    // MARK: - Table data source

    public func numberOfSections() -> Int { controller.numberOfSections }

    public func numberOfRows(inSection section: Int) -> Int { controller.numberOfObjects(inSection: section) }

    public func headerText(forSection section: Int) -> String {
        let count = controller.numberOfObjects(inSection: section)
        return "\(controller.sectionName(at: section)) (\(count) team\(count == 1 ? "" : "s"))"
    }

    public func rowText(at index: TableIndex, width: Int) -> String {
        // A team another process just deleted has no row until its deletion arrives (next tick).
        do {
            return try controller.objectIfPresent(at: indexPath(index)).map { renderer.text(for: $0, width: width) } ?? ""
        } catch {
            message = Self.sentence("\(error)")
            return ""
        }
    }

    private func indexPath(_ index: TableIndex) -> FetchedResults.IndexPath {
        FetchedResults.IndexPath(row: index.row, section: index.section)
    }
}
