import FetchedResults
import TerminalUI
import WorldCupModel

/// Drawing: the title, the column headings, the list, the status line with the cursor's place,
/// and the help or the dialog as a box over the dimmed list. Each frame draws only what changed.
extension ScoreboardScreen {
    /// The text last drawn on the fixed rows (nil: draw again).
    struct DrawnRows {
        var title: String?
        var heading: String?
        var status: String?
        /// Where the help or the dialog was drawn.
        var box: OverlayBox.Frame?
    }

    /// Draws what changed and flushes one frame.
    public func render() {
        fitStatusRows()
        let status = statusLines
        let box = overlayBox
        tableView.isDimmed = box != nil
        // A box that grew, shrank or moved (the dialog's problem line came or went) leaves
        // its old border on rows the list does not otherwise redraw.
        let boxFrame = box?.frame(top: tableView.top, height: tableView.height, columns: surface.columns)
        if boxFrame != drawn.box {
            tableView.setNeedsDisplay()
            drawn.box = boxFrame
        }
        if let titleRow { drawTitle(titleRow) }
        if let headingRow { drawHeading(headingRow) }
        tableView.draw(on: surface)
        if let box { box.draw(on: surface, top: tableView.top, height: tableView.height) }
        drawStatus(status)
        placeCursor(box)
        surface.present()
    }

    private func drawTitle(_ row: Int) {
        let teams = teamCount
        let zones = controller.numberOfSections
        let zonesText = "\(Thousands.grouped(zones)) zone\(zones == 1 ? "" : "s")"
        let title =
            if controller.hasRowsToLoad {
                "World Cup — loading the standings: \(Thousands.grouped(teams)) teams so far"
            } else if let filter, let filterCount {
                "World Cup — \(filterCount) in \(zonesText) · names containing “\(filter.text)”" + lastChangeText
            } else {
                "World Cup — \(Thousands.grouped(teams)) team\(teams == 1 ? "" : "s") in \(zonesText)" + lastChangeText
            }
        guard title != drawn.title else { return }
        surface.drawLine(row, title, style: [.bold])
        drawn.title = title
    }

    private func drawHeading(_ row: Int) {
        let heading = renderer.heading(rankColumns: rankColumns, width: surface.columns)
        guard heading != drawn.heading else { return }
        surface.drawLine(row, heading, style: [.dim])
        drawn.heading = heading
    }

    // MARK: - Status line

    /// Gives the status line as many rows as its text takes, and the list the rest.
    func fitStatusRows() {
        let rows = statusLines.lines.count
        guard rows != statusRows else { return }
        statusRows = rows
        fitList()
    }

    private var hints: String {
        switch mode {
        case .dialog: return "Enter save · Esc cancel · Tab zone or complete it · Shift-Tab name"
        case .help: return "Any key closes the help"
        case .searching, .filtering: return ""
        case .zoneLetter: return "Zone by its first letter: " + controller.sectionIndexTitles.joined(separator: " ")
        case .list where store.isReadOnly:
            return "Read-only store · ↑↓ move · / search · ] zone · ? help · q quit"
        case .list where filter != nil:
            return "Filtered · Esc every team · \\ change · ↑↓ move · Enter +1 win · u undo · ? help"
        case .list:
            return "↑↓ move · Enter +1 win · / search · ] zone · u undo" + (isShaken ? " · + add team" : "")
                + " · ? help · q quit"
        }
    }

    /// The left part: a message, the search line, or the key hints; whether it may wrap
    /// (messages do, so their advice is never cut off; hints and the search line stay one row).
    private var statusText: (text: String, style: TextStyle, wraps: Bool) {
        if case .searching(let prompt) = mode {
            let found = prompt.search.map { "  " + searchStatus($0).drop { $0 != "—" } } ?? ""
            return ("/" + prompt.query.text + found, [], false)
        }
        if case .filtering(let prompt) = mode {
            let count = filterCount.map { "  — " + $0 } ?? ""
            return ("\\" + prompt.text.text + count, [], false)
        }
        if let message { return (message, [.bold], true) }
        if let problem = connectionProblem {
            let inDoubt = scoresInDoubt.isEmpty ? "" : " · \(scoresInDoubt.count) in doubt, checked once back"
            return (Self.sentence(problem) + " · standings as last known" + inDoubt, [.bold], true)
        }
        if let seconds = shownReplicaLag {
            return (
                "Reading a standby \(seconds) s behind the primary · newer wins show once it catches up", [.bold],
                true
            )
        }
        return (hints, [.dim], false)
    }

    /// The right part: where the cursor is among all teams, and marks when the list goes on
    /// above (▲) or below (▼) the screen.
    private var positionText: String {
        guard let position = tableView.cursorPosition else { return "" }
        let marks = (tableView.hasLinesAbove ? "▲" : " ") + (tableView.hasLinesBelow ? "▼" : " ")
        // "+ loading": more teams are still loading behind the first screens.
        return marks + " " + Thousands.grouped(position.ordinal) + " / " + Thousands.grouped(position.count)
            + (controller.hasRowsToLoad ? "+ loading" : "")
    }

    /// The status line's rows: the text and the cursor's place on one row when they fit; a
    /// longer message wrapped over the window's width instead, on at most a few rows (half the
    /// list's at most), the position left out until the message goes.
    private var statusLines: (lines: [String], style: TextStyle, position: String?) {
        let (text, style, wraps) = statusText
        let position = positionText
        let positionColumns = TextWidth.columns(of: position)
        let showsPosition = !position.isEmpty && surface.columns >= positionColumns + 20
        let room = showsPosition ? surface.columns - positionColumns - 1 : surface.columns
        let mostRows = min(4, max(1, (surface.rows - rowsAboveList - 1) / 2))
        guard wraps, mostRows > 1, TextWidth.columns(of: text) > room else {
            return (
                [showsPosition ? TextWidth.fit(text, toColumns: room) + " " + position : text], style,
                showsPosition ? position : nil
            )
        }
        var lines = TextWidth.wrap(text, toColumns: surface.columns)
        if lines.count > mostRows {
            let rest = lines[(mostRows - 1)...].joined(separator: " ")
            lines = Array(lines.prefix(mostRows - 1)) + [TextWidth.truncate(rest, toColumns: surface.columns)]
        }
        return (lines, style, nil)
    }

    private func drawStatus(_ status: (lines: [String], style: TextStyle, position: String?)) {
        guard surface.rows >= 2 else { return }
        let text = status.lines.joined(separator: "\n")
        guard text != drawn.status else { return }
        let first = surface.rows - status.lines.count
        for (offset, line) in status.lines.enumerated() {
            surface.drawLine(first + offset, line, style: status.style)
        }
        if let position = status.position {
            let column = surface.columns - TextWidth.columns(of: position)
            surface.draw(row: statusRow, column: column, position, style: [.dim])
        }
        drawn.status = text
    }

    // MARK: - Boxes over the list

    /// The help or the dialog, when one is open.
    var overlayBox: OverlayBox? {
        switch mode {
        case .help: return OverlayBox(lines: helpLines)
        case .dialog(let dialog): return dialogBox(dialog)
        default: return nil
        }
    }

    private var helpLines: [String] {
        [
            "Keys", "",
            "↑ k  ↓ j            move between teams",
            "PgUp PgDn  ^B ^F    page up / down",
            "^U ^D               half a page up / down",
            "Home g  End G       first / last team",
            "] [  Tab Shift-Tab  next / previous zone",
            "' and a letter      the zone starting with it (again: the next)",
            "/ and text          search names; n N next / previous",
            "\\ and text          only names containing it; Esc all",
            "Enter Space         add a win",
            "click               select a team; on the selected one, add a win",
            "u                   undo this scoreboard's last change",
            "^R                  redo what u took back",
        ]
            + (isShaken ? ["+                   add a team"] : [])
            + [
                "^L  ^Z              repaint / suspend (fg comes back)",
                "?                   this help",
                "q Esc ^C            quit",
            ]
    }

    static let dialogWidth = 60
    static let labelColumns = 17

    private func dialogBox(_ dialog: AddTeamDialog) -> OverlayBox {
        let inner = min(Self.dialogWidth, max(1, surface.columns - 4))
        let fieldWidth = max(1, inner - Self.labelColumns)
        let problem = dialog.problem.map { TextWidth.wrap($0, toColumns: inner) } ?? []
        let lines =
            [
                "Secret Team — add a new team".padding(toLength: inner, withPad: " ", startingAt: 0),
                "",
                "Team Name:       " + dialog.name.visible(width: fieldWidth).text,
                "Qualifying Zone: " + dialog.zone.visible(width: fieldWidth).text,
                "",
            ] + problem
        return OverlayBox(lines: lines, maximumWidth: inner)
    }

    /// The hardware cursor shows only where text is typed (the dialog's field, the search
    /// line); elsewhere it is kept on the cursor row for screen readers, and shown there in
    /// screen-reader mode.
    private func placeCursor(_ box: OverlayBox?) {
        if case .dialog(let dialog) = mode, let box {
            let fieldWidth = max(1, min(Self.dialogWidth, surface.columns - 4) - Self.labelColumns)
            let editor = dialog.focus == .name ? dialog.name : dialog.zone
            let visible = editor.visible(width: fieldWidth)
            let line = dialog.focus == .name ? 2 : 3
            let place = box.position(
                ofLine: line, column: Self.labelColumns + visible.cursorColumn,
                top: tableView.top, height: tableView.height, columns: surface.columns)
            if dialog.focus == .zone, let completion = dialog.zoneCompletion, editor.cursor == editor.characters.count {
                let room = fieldWidth - visible.cursorColumn
                surface.draw(
                    row: place.row, column: place.column, TextWidth.truncate(completion, toColumns: room), style: [.dim]
                )
            }
            surface.setCursorVisible(true)
            surface.placeCursor(row: place.row, column: place.column)
        } else if case .searching(let prompt) = mode {
            surface.setCursorVisible(true)
            surface.placeCursor(row: statusRow, column: 1 + prompt.query.visible(width: surface.columns).cursorColumn)
        } else if case .filtering(let prompt) = mode {
            surface.setCursorVisible(true)
            surface.placeCursor(row: statusRow, column: 1 + prompt.text.visible(width: surface.columns).cursorColumn)
        } else {
            surface.setCursorVisible(isScreenReaderMode)
            surface.placeCursor(row: tableView.cursorScreenRow ?? statusRow, column: 0)
        }
    }
}
