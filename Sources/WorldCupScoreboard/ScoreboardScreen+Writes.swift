import FetchedResults
import Foundation
import TerminalUI
import WorldCupModel

/// Writes — a win, an added team, an undo, a redo — and what other writers did. A key asks for a write
/// (``ScoreboardWrite``); the loop runs it (``perform(_:)``) as one transaction, and the screen
/// learns its outcome only through the controller's change set.
extension ScoreboardScreen {
    typealias UndoEntry = ScoreboardWrite.UndoEntry

    /// The write a win for the team under the cursor needs, if it can be made now.
    func addWinUnderCursor() -> ScoreboardEffect {
        guard let teamID = visibleCursorRowID, isConnected(orSay: "Not counted") else { return .redraw }
        redoStack.removeAll()
        return .write(
            .score(ScoreboardWrite.Score(key: ScoreKey(), teamID: teamID, name: teamName(teamID), isUndo: false)))
    }

    /// Runs a write a key asked for at `now`: one transaction; its outcome goes to the status
    /// line, and a committed change to ``didCommit``.
    public func perform(_ write: ScoreboardWrite, at now: ContinuousClock.Instant = .now) {
        changesSeenAt = now
        defer { changesSeenAt = nil }
        switch write {
        case let .score(score):
            perform { try commit(score) }
        case let .undo(entry):
            perform { try undo(entry) }
        case let .redo(entry):
            perform { try redo(entry) }
        case let .addTeam(name, zone):
            addTeam(name: name, zone: zone)
        }
    }

    /// Does a score with its key; a score whose outcome the lost connection left unknown is
    /// kept, and done again with the same key when the store is back. A score sent again that
    /// finds no server taking writes stays in doubt: its first attempt may have committed (the
    /// standings may come from a standby that is still up while the primary is down).
    /// Whether the score counted now (a win that finds its team gone, an undo refused, or a
    /// score left in doubt did not).
    @discardableResult
    private func commit(_ score: ScoreboardWrite.Score, sentAgainAt: ContinuousClock.Instant? = nil) throws -> Bool {
        do {
            if score.isUndo {
                switch try store.takeBackWin(teamID: score.teamID, key: score.key) {
                case .undone:
                    message = "Took back a win from \(score.name)."
                    redoStack.append(.win(teamID: score.teamID, name: score.name))
                    didCommit(CommittedChange(.undo, teamID: score.teamID, teamName: score.name, key: score.key))
                    return true
                case .teamGone: message = "\(score.name) is no longer in the store; nothing to undo."
                case .changedByOthers:
                    message = "Not undone: \(score.name) has no win left to take back (changed elsewhere)."
                }
            } else if let team = try store.addWin(teamID: score.teamID, key: score.key) {
                undoStack.append(.win(teamID: score.teamID, name: team.teamName))
                didCommit(CommittedChange(.win, teamID: score.teamID, teamName: team.teamName, key: score.key))
                return true
            }
        } catch let error as StoreError where error.reason == .scoreInDoubt {
            scoresInDoubt.append(score)
            message =
                "\(score.isUndo ? "Undo" : "Win") for \(score.name) in doubt: the connection broke during its commit."
                + " It will be checked, and counted once, when the server is back."
        } catch let error as StoreError where error.reason == .unreachable && sentAgainAt != nil {
            scoresInDoubt.append(score)
            doubtStillUnreachableAt = sentAgainAt
            message =
                "\(score.isUndo ? "Undo" : "Win") for \(score.name) still in doubt: no server takes writes yet."
                + " It will be checked, and counted once, when one does."
        }
        return false
    }

    /// Once the store is back: does each score in doubt again with its key, which counts the
    /// ones that did not count and leaves the others as they are.
    func resolveScoresInDoubt(at now: ContinuousClock.Instant) {
        if let since = doubtStillUnreachableAt, now - since < Self.doubtRetryInterval { return }
        doubtStillUnreachableAt = nil
        let pending = scoresInDoubt
        scoresInDoubt = []
        for score in pending {
            message = nil
            perform { try commit(score, sentAgainAt: now) }
            if !scoresInDoubt.contains(where: { $0.key == score.key }), !score.isUndo, message == nil {
                message = "The win for \(score.name), in doubt while the server was away, is counted once."
            }
        }
    }

    /// Whether the store can take a write now; if not, says so on the status line, starting
    /// with `refusal`. A write is refused rather than queued while the server is away: a queued
    /// win is invisible to every other screen and lost with this one.
    func isConnected(orSay refusal: String) -> Bool {
        guard let problem = connectionProblem else { return true }
        message = "\(refusal): \(problem). The standings shown are the last known; try again once the server is back."
        return false
    }

    private func teamName(_ teamID: Int64) -> String {
        let team = controller.indexPath(forRowID: teamID).flatMap { try? controller.objectIfPresent(at: $0) }
        return team?.teamName ?? "the team"
    }

    /// The write that takes back this scoreboard's last change, never what others did since: a
    /// change that someone else has built on is kept, and the status line says why.
    func undo() -> ScoreboardEffect {
        guard !undoStack.isEmpty else {
            message = "Nothing to undo."
            return .redraw
        }
        guard isConnected(orSay: "Not undone") else { return .redraw }
        return .write(.undo(undoStack.removeLast()))
    }

    private func undo(_ entry: UndoEntry) throws {
        switch entry {
        case let .win(teamID, name):
            try commit(ScoreboardWrite.Score(key: ScoreKey(), teamID: teamID, name: name, isUndo: true))
        case let .added(team):
            switch try store.removeAddedTeam(team) {
            case .undone:
                message = "Removed \(team.teamName)."
                redoStack.append(.added(team))
                didCommit(CommittedChange(.remove, teamID: team.id ?? 0, teamName: team.teamName))
            case .teamGone: message = "\(team.teamName) is no longer in the store; nothing to undo."
            case let .changedByOthers(now):
                let wins = "\(Thousands.grouped(now.wins)) win\(now.wins == 1 ? "" : "s")"
                message = "Not undone: \(now.teamName) was changed elsewhere since it was added (now \(wins))."
            }
        }
    }

    /// The write that does again what the last undo took back: a win counted anew (with a new
    /// key), a removed team added again, unless someone else has taken its name since.
    func redo() -> ScoreboardEffect {
        guard !redoStack.isEmpty else {
            message = "Nothing to redo."
            return .redraw
        }
        guard isConnected(orSay: "Not redone") else { return .redraw }
        return .write(.redo(redoStack.removeLast()))
    }

    private func redo(_ entry: UndoEntry) throws {
        switch entry {
        case let .win(teamID, name):
            let score = ScoreboardWrite.Score(key: ScoreKey(), teamID: teamID, name: name, isUndo: false)
            if try commit(score) {
                message = "Counted the win for \(name) again."
            } else if message == nil {
                message = "\(name) is no longer in the store; nothing to redo."
            }
        case let .added(removed):
            do {
                let team = try store.addTeam(name: removed.teamName, zone: removed.qualifyingZone)
                undoStack.append(.added(team))
                message = "Added \(team.teamName) again."
                didCommit(CommittedChange(.add, teamID: team.id ?? 0, teamName: team.teamName))
            } catch let error as WorldCupError {
                guard case .duplicateTeam = error else { throw error }
                message = "Not redone: " + Self.sentence(error.description)
            }
        }
    }

    func handleDialogKey(_ key: Key, _ dialog: AddTeamDialog) -> ScoreboardEffect {
        var current = dialog
        switch current.handle(key) {
        case .editing:
            mode = .dialog(current)
        case .cancelled:
            mode = .list
        case let .submitted(name, zone):
            guard isConnected(orSay: "Not added") else {
                current.refuse(message ?? "", about: nil)
                message = nil
                mode = .dialog(current)
                return .redraw
            }
            mode = .dialog(current)
            redoStack.removeAll()
            return .write(.addTeam(name: name, zone: zone))
        }
        return .redraw
    }

    /// Adds the team the dialog asked for; a refusal goes back into the dialog.
    private func addTeam(name: String, zone: String) {
        guard case .dialog(var dialog) = mode else { return }
        do {
            let team = try store.addTeam(name: name, zone: zone)
            writesSinceCheckpoint += 1
            followOwnWrite()
            mode = .list
            undoStack.append(.added(team))
            message = "Added \(team.teamName)."
            didCommit(CommittedChange(.add, teamID: team.id ?? 0, teamName: team.teamName))
            if let teamID = team.id {
                moveCursor { $0.setCursor(controller.indexPath(forRowID: teamID).map(TableIndex.init)) }
            }
        } catch let error as WorldCupError {
            dialog.refuse(Self.sentence(error.description))
            mode = .dialog(dialog)
        } catch let error as StoreError {
            dialog.refuse(Self.sentence(error.brief))
            mode = .dialog(dialog)
        } catch {
            dialog.refuse("\(error)")
            mode = .dialog(dialog)
        }
    }

    /// After this program's own write (on the store's connection, not the controller's): the
    /// look that delivers its change set now, so that the frame after the key shows it.
    func followOwnWrite() {
        _ = try? controller.processPendingChanges()
    }

    /// Runs a store write; a failure becomes a message on the status line, never a crash.
    private func perform(_ write: () throws -> Void) {
        do {
            try write()
            writesSinceCheckpoint += 1
            followOwnWrite()
        } catch WorldCupError.storeReadOnly {
            // Short enough for the status line; the store's path would push the reason off it.
            message = "Read-only store: nothing changed (this user may not write it)."
        } catch let error as StoreError where error.reason == .notPermitted {
            // Without the store's name (the user chose it to open this scoreboard), so that
            // the advice fits a narrow status line.
            message = Self.sentence(error.brief)
        } catch {
            message = Self.sentence("\(error)")
        }
    }

    /// Whether the standings are still loading behind the first screens: the event loop then
    /// calls ``loadMoreStandings()`` whenever no key waits (while connected: a server that is
    /// away is waited for as usual).
    public var isLoadingStandings: Bool { controller.hasRowsToLoad }

    /// Whether a step of the load can be made now.
    public var canLoadMoreStandings: Bool { controller.hasRowsToLoad && connectionProblem == nil }

    /// Loads the next part of the standings (a few milliseconds); their rows arrive through
    /// the binding like any change, without the highlight others' changes get.
    public func loadMoreStandings() {
        isLoadingStep = true
        defer { isLoadingStep = false }
        do {
            try loadPacer.step { rows in
                let held = controller.heldRowCount
                try controller.loadMoreRows(rows)
                return controller.heldRowCount - held
            }
        } catch {
            message = Self.sentence("\(error)")
        }
    }

    /// Shows what other processes committed since the last look; returns whether anything
    /// changed. Their rows are highlighted for a moment from `now`.
    @discardableResult
    public func showExternalChanges(at now: ContinuousClock.Instant) -> Bool {
        var changed = true
        externalChangesShownAt = now
        changesSeenAt = now
        defer { changesSeenAt = nil }
        do {
            changed = try controller.processPendingChanges()
        } catch {
            message = Self.sentence("\(error)")
        }
        externalChangesShownAt = nil
        // The connection may have broken or come back in this look or since the last one (a
        // batch of rows read while drawing reconnects too): compare with what the screen shows.
        let problem = connectionProblem
        if problem != shownConnectionProblem {
            changed = true
            if problem == nil {
                message = "Connected again; the standings are up to date."
            } else if shownConnectionProblem == nil {
                // The outage is newer than any message on the status line ("Read-only…", "Took
                // back a win…"): it takes the line at once, not after the next key.
                message = nil
            }
            shownConnectionProblem = problem
        }
        if replicaLagSeconds != shownReplicaLag {
            changed = true
            shownReplicaLag = replicaLagSeconds
        }
        // Not inside the look: a write delivers its own change set.
        if !scoresInDoubt.isEmpty, connectionProblem == nil {
            resolveScoresInDoubt(at: now)
            changed = true
        }
        return changed
    }

    /// Whether scores wait to be sent again: the event loop then looks again soon, even with
    /// nothing to wake it, since a look is what sends them.
    public var hasScoresInDoubt: Bool { !scoresInDoubt.isEmpty }

    /// When the next highlight of another writer's change ends, if one is shown.
    public var nextHighlightExpiry: ContinuousClock.Instant? { highlights.nextExpiry }

    /// When the next movement mark (▲2, NEW) ends, if one is shown.
    public var nextMovementExpiry: ContinuousClock.Instant? { movements.nextExpiry }

    /// Ends the highlights and movement marks due at `now`, and says a screen reader's sentence
    /// that waited for its turn; returns whether something needs drawing again.
    @discardableResult
    public func expireHighlights(at now: ContinuousClock.Instant) -> Bool {
        let expired = highlights.removeExpired(at: now) + movements.removeExpired(at: now)
        let rows = expired.compactMap { controller.indexPath(forRowID: $0).map(TableIndex.init) }
        tableView.setNeedsDisplay(rowsAt: rows)
        let said = sayDueAnnouncement(at: now)
        return !expired.isEmpty || said
    }

    /// Runs a checkpoint when at least `minimumWrites` writes wait in the log.
    public func checkpoint(afterWrites minimumWrites: Int = 1) {
        guard writesSinceCheckpoint >= max(1, minimumWrites) else { return }
        store.tidyWhileIdle()
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
            // Without the server the cache waits for the next rest; the status line says why.
            if case .reconnecting = controller.connectionState { return }
            message = "Could not save the standings cache (the next start will be slower): \(error)"
        }
    }
}

/// Rows another writer changed, each highlighted until a moment after its change.
struct RecentChanges {
    /// How long a row stays highlighted.
    var duration = Duration.milliseconds(1500)
    /// A change of more rows than this (an import) is not highlighted row by row.
    static let maximumRows = 1000
    private var expiries: [Int64: ContinuousClock.Instant] = [:]

    mutating func add(_ rowIDs: [Int64], at now: ContinuousClock.Instant) {
        guard rowIDs.count <= Self.maximumRows else { return }
        let until = now + duration
        for rowID in rowIDs { expiries[rowID] = until }
    }

    func contains(_ rowID: Int64) -> Bool { expiries[rowID] != nil }

    var nextExpiry: ContinuousClock.Instant? { expiries.values.min() }

    /// Forgets the highlights that are due and returns their row ids.
    mutating func removeExpired(at now: ContinuousClock.Instant) -> [Int64] {
        let expired = expiries.filter { $0.value <= now }.map(\.key)
        for rowID in expired { expiries[rowID] = nil }
        return expired
    }
}
