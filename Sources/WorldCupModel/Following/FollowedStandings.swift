import FetchedResults
import Foundation

/// The delegate of a results controller over the standings that turns each change set into
/// what it did to each team (``StandingsChange``), for `worldcup follow`.
///
/// The controller says which rows a commit touched and shows them after it; what they were
/// before, and every team's wins for the ranks, this keeps from the fetch and the change sets
/// since: no query of its own.
public final class FollowedStandings: FetchedResultsControllerDelegate {
    private var teams: [Int64: Team] = [:]
    private var zones: [String: ZoneWins] = [:]
    private var touchedRows: [Int64] = []
    private var sectionChanges: [SectionChange] = []
    private var told: [StandingsChange] = []
    private var failure: (any Error)?

    public init() {}

    /// Takes in the fetched standings, to tell the change sets after them.
    public func start(from controller: FetchedResultsController<Team>) throws {
        for section in 0..<controller.numberOfSections {
            for row in 0..<controller.numberOfObjects(inSection: section) {
                let path = IndexPath(row: row, section: section)
                add(try controller.object(at: path), id: controller.rowID(at: path))
            }
        }
    }

    /// The changes told since the last call, change set after change set; each change set's
    /// teams removed first, then the others in standings order.
    ///
    /// - Throws: what stopped a change set's teams from being read.
    public func takeChanges() throws -> [StandingsChange] {
        if let failure {
            self.failure = nil
            throw failure
        }
        defer { told = [] }
        return told
    }

    public func controllerWillChangeContent(_ controller: FetchedResultsController<Team>) {
        touchedRows = []
        sectionChanges = []
    }

    public func controller(_ controller: FetchedResultsController<Team>, didChange section: SectionChange) {
        sectionChanges.append(section)
    }

    public func controller(_ controller: FetchedResultsController<Team>, didChange object: ObjectChange) {
        touchedRows.append(object.rowID)
    }

    public func controllerDidChangeContent(_ controller: FetchedResultsController<Team>) {
        do {
            told += try changes(in: controller)
        } catch {
            failure = error
        }
    }

    /// Nothing to do: `processPendingChanges()` throws the same error, but for a lost
    /// connection, which the controller retries, catching up in one change set.
    public func controller(_ controller: FetchedResultsController<Team>, didFailWith error: any Error) {}

    /// What the change set just told did, from the controller's state after it. Rows inside a
    /// section inserted or deleted get no change of their own: they are that section's rows.
    private func changes(in controller: FetchedResultsController<Team>) throws -> [StandingsChange] {
        var ids = touchedRows
        for section in sectionChanges {
            switch section.type {
            case .insert:
                ids += (0..<controller.numberOfObjects(inSection: section.index)).map {
                    controller.rowID(at: IndexPath(row: $0, section: section.index))
                }
            case .delete:
                let zone = NoCase.key(section.name)
                ids += teams.filter { NoCase.key($0.value.qualifyingZone) == zone }.map(\.key)
            case .move, .update:
                break
            }
        }
        var seen = Set<Int64>()
        ids = ids.filter { seen.insert($0).inserted }
        var after: [Int64: (team: Team, path: IndexPath)] = [:]
        for id in ids {
            if let path = controller.indexPath(forRowID: id) { after[id] = (try controller.object(at: path), path) }
        }
        let before = ids.map { id in (id, teams[id], teams[id].map(rank)) }
        for (id, team, _) in before {
            if let team { remove(team, id: id) }
            if let new = after[id]?.team { add(new, id: id) }
        }
        let changes = before.compactMap { id, team, oldRank -> StandingsChange? in
            let new = after[id]?.team
            guard team.map(Self.shown) != new.map(Self.shown) else { return nil }
            return StandingsChange(teamID: id, before: team, after: new, oldRank: oldRank, newRank: new.map(rank))
        }
        return changes.sorted { first, second in
            switch (after[first.teamID]?.path, after[second.teamID]?.path) {
            case let (one?, two?): one < two
            case (nil, nil): (first.oldRank ?? 0, first.teamID) < (second.oldRank ?? 0, second.teamID)
            case (nil, _?): true
            case (_?, nil): false
            }
        }
    }

    /// What a change's line shows of a team: a change to anything else (its image) is not told.
    private static func shown(_ team: Team) -> [String] {
        [team.teamName, team.qualifyingZone, String(team.wins)]
    }

    private func rank(_ team: Team) -> Int {
        zones[NoCase.key(team.qualifyingZone)]?.rank(of: team.wins) ?? 1
    }

    private func add(_ team: Team, id: Int64) {
        teams[id] = team
        zones[NoCase.key(team.qualifyingZone), default: ZoneWins()].insert(team.wins)
    }

    private func remove(_ team: Team, id: Int64) {
        teams[id] = nil
        let zone = NoCase.key(team.qualifyingZone)
        zones[zone]?.remove(team.wins)
        if zones[zone]?.isEmpty == true { zones[zone] = nil }
    }
}
