import FetchedResults
import Foundation
import TerminalUI

/// Writes — a win, an added team, an undo — and what other writers did. Each write is one
/// transaction; the screen learns its outcome only through the controller's change set.
extension ScoreboardScreen {
    /// One change this scoreboard made, as undo needs it.
    enum UndoEntry {
        case win(teamID: Int64, name: String)
        /// The team as this scoreboard added it: undo removes it only while it is still so.
        case added(Team)
    }

    func addWinUnderCursor() {
        guard let teamID = visibleCursorRowID else { return }
        perform {
            if let team = try store.addWin(teamID: teamID) {
                undoStack.append(.win(teamID: teamID, name: team.teamName))
                didCommitWin(team)
            }
        }
    }

    /// Takes back this scoreboard's last change, never what others did since: a change that
    /// someone else has built on is kept, and the status line says why.
    func undo() {
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
                case .changedByOthers: message = "Not undone: \(name) has no win left to take back (changed elsewhere)."
                }
            case let .added(team):
                switch try store.removeAddedTeam(team) {
                case .undone: message = "Removed \(team.teamName)."
                case .teamGone: message = "\(team.teamName) is no longer in the store; nothing to undo."
                case let .changedByOthers(now):
                    let wins = "\(Thousands.grouped(now.wins)) win\(now.wins == 1 ? "" : "s")"
                    message = "Not undone: \(now.teamName) was changed elsewhere since it was added (now \(wins))."
                }
            }
        }
    }

    func handleDialogKey(_ key: Key, _ dialog: AddTeamDialog) {
        var current = dialog
        switch current.handle(key) {
        case .editing:
            mode = .dialog(current)
        case .cancelled:
            mode = .list
        case let .submitted(name, zone):
            do {
                let team = try store.addTeam(name: name, zone: zone)
                writesSinceCheckpoint += 1
                mode = .list
                undoStack.append(.added(team))
                message = "Added \(team.teamName)."
                if let teamID = team.id {
                    moveCursor { $0.setCursor(controller.indexPath(forRowID: teamID).map(TableIndex.init)) }
                }
            } catch let error as WorldCupError {
                current.refuse(Self.sentence(error.description))
                mode = .dialog(current)
            } catch {
                current.refuse("\(error)")
                mode = .dialog(current)
            }
        }
    }

    /// Runs a store write; a failure becomes a message on the status line, never a crash.
    func perform(_ write: () throws -> Void) {
        do {
            try write()
            writesSinceCheckpoint += 1
        } catch {
            message = Self.sentence("\(error)")
        }
    }

    /// Shows what other processes committed since the last look (the idle tick calls this);
    /// returns whether anything changed. Their rows are highlighted for a moment.
    @discardableResult
    public func showExternalChanges() -> Bool {
        isShowingExternalChanges = true
        defer { isShowingExternalChanges = false }
        do {
            return try controller.processExternalChanges()
        } catch {
            message = Self.sentence("\(error)")
            return true
        }
    }

    /// When the next highlight of another writer's change ends, if one is shown.
    public var nextHighlightExpiry: ContinuousClock.Instant? { highlights.nextExpiry }

    /// Ends the highlights that are due; returns whether a row needs drawing again.
    @discardableResult
    public func expireHighlights() -> Bool {
        let expired = highlights.removeExpired()
        let rows = expired.compactMap { controller.indexPath(forRowID: $0).map(TableIndex.init) }
        tableView.setNeedsDisplay(rowsAt: rows)
        return !expired.isEmpty
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
}

/// Rows another writer changed, each highlighted until a moment after its change.
struct RecentChanges {
    static let duration = Duration.milliseconds(1500)
    /// A change of more rows than this (an import) is not highlighted row by row.
    static let maximumRows = 1000
    private let clock = ContinuousClock()
    private var expiries: [Int64: ContinuousClock.Instant] = [:]

    mutating func add(_ rowIDs: [Int64]) {
        guard rowIDs.count <= Self.maximumRows else { return }
        let until = clock.now + Self.duration
        for rowID in rowIDs { expiries[rowID] = until }
    }

    func contains(_ rowID: Int64) -> Bool { expiries[rowID] != nil }

    var nextExpiry: ContinuousClock.Instant? { expiries.values.min() }

    /// Forgets the highlights that are due and returns their row ids.
    mutating func removeExpired() -> [Int64] {
        let now = clock.now
        let expired = expiries.filter { $0.value <= now }.map(\.key)
        for rowID in expired { expiries[rowID] = nil }
        return expired
    }
}
