import FetchedResults
import WorldCupModel

/// The event stream's messages (Server-Sent Events), each encoded once and written as it is to
/// every viewer: `snapshot` parts (the standings whole, for a viewer that just connected) and
/// `change` (one change set of the results controller, with the changed rows' content).
///
/// Paths are the controller's: deletes and a move's or update's `from` against the state before
/// the change set, inserts and `to` against the state after (table-view batch-update rules).
/// Rows are objects with the ``TeamField/eventKey`` of each of ``Team/fields`` that has one
/// (`{"id", "name", "zone", "wins"}`); in a snapshot and in a change set's runs of inserted
/// rows, arrays of their values without the zone, which their section gives (`[id, name, wins]`).
enum StandingsEvents {
    /// Rows per snapshot part: a big store's snapshot goes as many parts, so the page shows the
    /// first part's rows while the rest arrive.
    static let snapshotPartRows = 2_000

    /// One change set as a `change` event numbered `version` (this server's count) with the SSE
    /// id `id` (the change feed's position after it).
    static func change(
        version: UInt64, id: String, sections: [SectionChange], objects: [ObjectChange],
        sectionRows: (Int) -> [Team], team: (IndexPath) -> Team?
    ) -> [UInt8] {
        var json = WireJSON(reservingCapacity: 512)
        json.raw("{\"v\":")
        json.number(version)
        json.raw(",\"sections\":[")
        for (index, change) in sections.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw("{\"type\":")
            switch change.type {
            case .insert: json.raw("\"insert\"")
            case .delete: json.raw("\"delete\"")
            case .move, .update: json.raw("\"rename\"")
            }
            json.raw(",\"index\":")
            json.number(change.index)
            json.raw(",\"name\":")
            json.string(change.name)
            if change.type == .insert {
                json.raw(",\"rows\":[")
                for (row, team) in sectionRows(change.index).enumerated() {
                    if row > 0 { json.raw(",") }
                    write(team, to: &json)
                }
                json.raw("]")
            }
            json.raw("}")
        }
        // Inserts of consecutive rows of one section (a load step's thousands) go as runs of
        // arrays, a third of the bytes of one object per row.
        let (runs, singles) = insertRuns(in: objects, team: team)
        json.raw("],\"runs\":[")
        for (index, run) in runs.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw("{")
            write(path: run.start, named: "at", to: &json, first: true)
            json.raw(",\"rows\":")
            writeCompact(run.teams, to: &json)
            json.raw("}")
        }
        json.raw("],\"rows\":[")
        for (index, change) in singles.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw("{\"type\":")
            switch change {
            case .insert: json.raw("\"insert\"")
            case .delete: json.raw("\"delete\"")
            case .move: json.raw("\"move\"")
            case .update: json.raw("\"update\"")
            }
            json.raw(",\"id\":")
            json.number(change.rowID)
            if let from = change.indexPath { write(path: from, named: "from", to: &json) }
            if let to = change.newIndexPath {
                write(path: to, named: "to", to: &json)
                json.raw(",\"team\":")
                if let team = team(to) { write(team, to: &json) } else { json.raw("null") }
            }
            json.raw("}")
        }
        json.raw("]}")
        return event(name: "change", id: id, data: json.bytes)
    }

    /// A run of inserted rows: consecutive rows of one section from `start`.
    private struct InsertRun {
        var start: IndexPath
        var teams: [Team]
    }

    /// The change set's inserts of two or more consecutive rows as runs, and every other change
    /// in order.
    private static func insertRuns(
        in objects: [ObjectChange], team: (IndexPath) -> Team?
    ) -> (runs: [InsertRun], singles: [ObjectChange]) {
        var runs: [InsertRun] = []
        var singles: [ObjectChange] = []
        var pending: (start: IndexPath, changes: [ObjectChange])?
        func flush() {
            guard let run = pending else { return }
            let teams = run.changes.compactMap { $0.newIndexPath.flatMap(team) }
            if run.changes.count > 1, teams.count == run.changes.count {
                runs.append(InsertRun(start: run.start, teams: teams))
            } else {
                singles += run.changes
            }
            pending = nil
        }
        for change in objects {
            guard case .insert = change, let to = change.newIndexPath else {
                flush()
                singles.append(change)
                continue
            }
            if let run = pending, run.start.section == to.section, run.start.row + run.changes.count == to.row {
                pending?.changes.append(change)
            } else {
                flush()
                pending = (to, [change])
            }
        }
        flush()
        return (runs, singles)
    }

    /// One section's rows in a snapshot part.
    struct SnapshotSection {
        var index: Int
        var name: String
        var count: Int
        var rows: [Team]
    }

    /// A part of a snapshot at `version`; the first part starts the standings afresh, the last
    /// one says so.
    static func snapshotPart(
        version: UInt64, id: String, sections: [SnapshotSection], first: Bool, last: Bool
    ) -> [UInt8] {
        var json = WireJSON(reservingCapacity: 64 * snapshotPartRows)
        json.raw("{\"v\":")
        json.number(version)
        json.raw(first ? ",\"first\":true" : ",\"first\":false")
        json.raw(last ? ",\"last\":true" : ",\"last\":false")
        json.raw(",\"sections\":[")
        for (position, section) in sections.enumerated() {
            if position > 0 { json.raw(",") }
            json.raw("{\"index\":")
            json.number(section.index)
            json.raw(",\"name\":")
            json.string(section.name)
            json.raw(",\"count\":")
            json.number(section.count)
            json.raw(",\"rows\":")
            writeCompact(section.rows, to: &json)
            json.raw("}")
        }
        json.raw("]}")
        return event(name: "snapshot", id: id, data: json.bytes)
    }

    /// The fields a row's object gives, under their event keys.
    private static let eventFields = Team.fields.compactMap { field in
        field.eventKey.map { (field: field, key: $0) }
    }

    /// The fields a row's array gives, in order: those of an object but the section's.
    private static let compactFields = eventFields.map(\.field).filter { $0.name != Team.sectionAttribute }

    private static func write(_ team: Team, to json: inout WireJSON) {
        for (index, (field, key)) in eventFields.enumerated() {
            json.raw(index == 0 ? "{" : ",")
            json.string(key)
            json.raw(":")
            write(field.value(of: team), to: &json)
        }
        json.raw("}")
    }

    /// Teams as arrays of their ``compactFields``: `[[id, name, wins], …]`.
    private static func writeCompact(_ teams: [Team], to json: inout WireJSON) {
        json.raw("[")
        for (row, team) in teams.enumerated() {
            if row > 0 { json.raw(",") }
            for (index, field) in compactFields.enumerated() {
                json.raw(index == 0 ? "[" : ",")
                write(field.value(of: team), to: &json)
            }
            json.raw("]")
        }
        json.raw("]")
    }

    private static func write(_ value: TeamFieldValue, to json: inout WireJSON) {
        switch value {
        case let .text(text): json.string(text)
        case let .number(number): json.number(number)
        case .null: json.raw("null")
        }
    }

    private static func write(path: IndexPath, named name: StaticString, to json: inout WireJSON, first: Bool = false) {
        json.raw(first ? "\"" : ",\"")
        json.raw(name)
        json.raw("\":[")
        json.number(path.section)
        json.raw(",")
        json.number(path.row)
        json.raw("]")
    }

    private static func event(name: String, id: String, data: [UInt8]) -> [UInt8] {
        var bytes = Array("id: \(id)\nevent: \(name)\ndata: ".utf8)
        bytes.reserveCapacity(bytes.count + data.count + 2)
        bytes.append(contentsOf: data)
        bytes.append(contentsOf: "\n\n".utf8)
        return bytes
    }
}
