import FetchedResults
import Foundation
import TerminalUI
import WorldCupModel

/// Ranks as sports tables give them (``SharedRank``), the marks of how teams just moved, and
/// when the standings last changed — all from the controller's rows and change sets, with no
/// query of their own.
extension ScoreboardScreen {
    /// The rank a row shows: none while a filter is in force, whose list holds only some of a
    /// zone's teams (a rank among them would not be the team's place in its zone).
    func shownRank(of team: Team, at index: TableIndex) -> Int? {
        filter == nil ? rank(of: team, at: index) : nil
    }

    /// A zone and a number of wins, which every team of that zone with those wins shares a rank for.
    struct RankKey: Hashable {
        var section: Int
        var wins: Int
    }

    /// The rank of `team` at `index`: one more than the teams of its zone with more wins. The
    /// rows above it are ordered by wins, so a binary search over them finds it in O(log n)
    /// reads (a zone may hold a million teams, most of them tied on 0 wins); kept per zone and
    /// wins until the next change set, so a frame searches once per run of tied teams at most.
    func rank(of team: Team, at index: TableIndex) -> Int {
        guard index.row > 0 else { return 1 }
        let key = RankKey(section: index.section, wins: team.wins)
        if let rank = ranks[key] { return rank }
        let rank: Int
        do {
            // Most rows follow a team with more wins: one read of a row held for the screen.
            if try wins(inSection: index.section, row: index.row - 1) > team.wins {
                rank = index.row + 1
            } else {
                rank = try SharedRank.rank(ofWins: team.wins, amongDescending: index.row, near: index.row - 1) {
                    try wins(inSection: index.section, row: $0)
                }
            }
        } catch {
            // A row the store cannot give now: the place in the list, until the next frame.
            return index.row + 1
        }
        ranks[key] = rank
        return rank
    }

    /// The wins of one row, read without keeping it (a search's rows would push out the
    /// batches the screen shows).
    private func wins(inSection section: Int, row: Int) throws -> Int {
        guard let team = try controller.objectsIfPresent(inSection: section, rows: row..<row + 1).first else {
            throw FetchedResultsError.objectDeleted(rowID: controller.rowID(at: IndexPath(row: row, section: section)))
        }
        return team.wins
    }

    /// Marks how the teams of a change set moved: NEW for a team that arrived, ▲n or ▼n for one
    /// whose rank changed. The old rank is found from the wins this screen last showed the team
    /// with: one more than the teams of its zone that had more wins then — those with more now,
    /// less the change set's own teams that have more now, plus those of them that had more
    /// before. A team never shown here gets no mark.
    func markMovements(_ rows: ResultsTableBinding.ChangedRows, at now: ContinuousClock.Instant) {
        var inserted = rows.inserted
        for section in rows.insertedSections where numberOfRows(inSection: section) <= MovementMarks.maximumRows {
            inserted += (0..<numberOfRows(inSection: section)).map {
                controller.rowID(at: IndexPath(row: $0, section: section))
            }
        }
        guard inserted.count + rows.moved.count <= MovementMarks.maximumRows else { return }
        for rowID in inserted { movements.mark(rowID, .new, at: now) }
        let fromRows = Dictionary(rows.moved.map { ($0.rowID, $0.fromRow) }) { first, _ in first }
        let changed = (inserted + rows.moved.map(\.rowID)).compactMap { rowID -> ChangedTeam? in
            guard let path = controller.indexPath(forRowID: rowID),
                let team = try? controller.objectIfPresent(at: path)
            else { return nil }
            return ChangedTeam(rowID: rowID, path: path, team: team, before: movements.seen(rowID))
        }
        for changedTeam in changed where !inserted.contains(changedTeam.rowID) {
            let (path, team) = (changedTeam.path, changedTeam.team)
            let newRank = rank(of: team, at: TableIndex(path))
            movements.see(team, rank: newRank, rowID: changedTeam.rowID)
            guard let before = changedTeam.before, NoCase.key(before.zone) == NoCase.key(team.qualifyingZone),
                // The rows with more wins than it had end near where it was.
                let aboveNow = try? SharedRank.rank(
                    ofWins: before.wins, amongDescending: numberOfRows(inSection: path.section),
                    near: fromRows[changedTeam.rowID], winsAt: { try wins(inSection: path.section, row: $0) })
            else { continue }
            let zone = changed.filter { $0.path.section == path.section }
            let oldRank =
                aboveNow - zone.filter { $0.team.wins > before.wins }.count
                + zone.filter {
                    ($0.before?.wins ?? .min) > before.wins
                        && $0.before.map(\.zone).map(NoCase.key) == NoCase.key(before.zone)
                }.count
            if let movement = RankMovement(oldRank: oldRank, newRank: newRank) {
                movements.mark(changedTeam.rowID, movement, at: now)
            }
        }
    }

    /// A team of a change set: where it is now, and what this screen last showed of it.
    private struct ChangedTeam {
        var rowID: Int64
        var path: IndexPath
        var team: Team
        var before: MovementMarks.Shown?
    }

    /// After a change set: draws again the rows on screen whose rank is not the one they show.
    /// A win that passes or joins tied teams changes their ranks, and they are in no change set.
    func redrawRerankedRows() {
        var rows: [TableIndex] = []
        for row in tableView.top..<tableView.top + tableView.height {
            guard let index = tableView.index(atScreenRow: row),
                let shown = movements.seen(controller.rowID(at: indexPath(index))),
                let team = try? controller.objectIfPresent(at: indexPath(index)),
                rank(of: team, at: index) != shown.rank
            else { continue }
            rows.append(index)
        }
        tableView.setNeedsDisplay(rowsAt: rows)
    }

    /// `· last change 21:04:13` (local time) once a change came, for the title line.
    var lastChangeText: String {
        guard let lastChange else { return "" }
        var seconds = time_t(lastChange.timeIntervalSince1970)
        var local = tm()
        localtime_r(&seconds, &local)
        return " · last change " + String(format: "%02d:%02d:%02d", local.tm_hour, local.tm_min, local.tm_sec)
    }
}
