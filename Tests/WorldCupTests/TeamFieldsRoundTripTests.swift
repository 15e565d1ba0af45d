import FetchedResultsPostgreSQL
import Foundation
import GRDB
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupStores

/// Every field of ``Team/fields`` goes through each layer and comes back as it went in, on
/// both stores: an import file made from the description (not by the app's writer), the store,
/// `worldcup list --json`, `worldcup export`, and `serve`'s snapshot and change events. A field
/// added to the description is tested here with no change to this file.
@Suite(.serialized) struct TeamFieldsRoundTripTests {
    /// Teams whose every user-set field has a value of its own; an optional text is left out,
    /// null or given, and a count with a seed default left out, in turn.
    static let teams: [(team: Team, leftOut: Set<String>)] = (0..<6).map { number in
        var team = Team.unfilled
        var leftOut: Set<String> = []
        for (position, field) in Team.userFields.enumerated() {
            switch field.kind {
            case .rowID: break
            case let .text(path): team[keyPath: path] = "\(field.name) \(number) \"ü/\\"
            case let .optionalText(path):
                if number % 3 == 0 { leftOut.insert(field.name) }
                team[keyPath: path] = number % 3 == 2 ? "\(field.name) \(number)" : nil
            case let .count(path, seedDefault):
                if let seedDefault, number % 2 == 0 {
                    leftOut.insert(field.name)
                    team[keyPath: path] = seedDefault
                } else {
                    team[keyPath: path] = 1_000 * number + position + 1
                }
            }
        }
        return (team, leftOut)
    }

    /// The import file: the teams as JSON objects, keys left out as ``teams`` says.
    static func importFile(in folder: TemporaryDirectory) throws -> String {
        let objects = teams.map { team, leftOut in
            var object: [String: Any] = [:]
            for field in Team.userFields where !leftOut.contains(field.name) {
                object[field.name] = json(field.value(of: team))
            }
            return object
        }
        let path = folder.path + "/teams.json"
        try JSONSerialization.data(withJSONObject: objects).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func json(_ value: TeamFieldValue) -> Any {
        switch value {
        case let .text(text): text
        case let .number(number): number
        case .null: NSNull()
        }
    }

    static func value(_ json: Any?) -> TeamFieldValue? {
        switch json {
        case is NSNull: .null
        case let text as String: .text(text)
        case let number as Int: .number(number)
        default: nil
        }
    }

    /// The team an object of the app's JSON describes, found by its name under `nameKey`.
    static func team(of object: [String: Any], nameKey: String) throws -> Team {
        let name = try #require(object[nameKey] as? String)
        return try #require(teams.first { $0.team.teamName == name }?.team, "no team named \(name)")
    }

    /// `object` holds every user-set field under its name, and nothing else, as `team` has it.
    static func expectSeedShape(_ object: [String: Any], _ team: Team) {
        #expect(Set(object.keys) == Set(Team.userFields.map(\.name)))
        for field in Team.userFields {
            #expect(value(object[field.name]) == field.value(of: team), "\(field.name) of \(team.teamName)")
        }
    }

    @Test(arguments: ["sqlite", "postgresql"])
    func everyFieldComesBackFromEachLayer(store kind: String) throws {
        let folder = TemporaryDirectory()
        let database = kind == "postgresql" ? try SharedDatabase() : nil
        let db = database?.uri() ?? folder.store
        @discardableResult func worldcup(_ arguments: [String]) throws -> ProgramRun {
            let run = try WorldCupProcess.run(arguments + ["--db", db, "--seed", WorldCupProcess.seedPath])
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            return run
        }
        try worldcup(["import", try Self.importFile(in: folder)])
        try expectColumns(db: db, database: database)

        let listed = try #require(
            try JSONSerialization.jsonObject(with: Data(try worldcup(["list", "--json"]).stdout.utf8))
                as? [[String: Any]])
        let listedTeams = listed.flatMap { ($0["teams"] as? [[String: Any]]) ?? [] }
        #expect(listedTeams.count == Self.teams.count)
        for object in listedTeams { Self.expectSeedShape(object, try Self.team(of: object, nameKey: "teamName")) }

        let exportPath = folder.path + "/export.json"
        try worldcup(["export", exportPath])
        let exported = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: exportPath)))
                as? [[String: Any]])
        #expect(exported.count == Self.teams.count)
        for object in exported { Self.expectSeedShape(object, try Self.team(of: object, nameKey: "teamName")) }

        try expectEvents(db: db, folder: folder, worldcup: worldcup)
    }

    /// The store's `team` table has a column for each field, in order, as its migrations made it.
    private func expectColumns(db: String, database: SharedDatabase?) throws {
        if let database {
            let columns = try database.connect().execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'team' ORDER BY ordinal_position"
            ).rows.compactMap { $0[0] }
            #expect(columns == Team.fields.map { PostgreSQLSchema.column($0.name) })
        } else {
            let columns = try DatabaseQueue(path: db).read { db in
                try Row.fetchAll(db, sql: "PRAGMA table_info(team)").map { $0["name"] as String }
            }
            #expect(columns == Team.fields.map(\.name))
        }
    }

    /// `serve`'s snapshot rows hold the values of the fields with an event key but the zone, in
    /// order; a change's team object holds each under its event key.
    private func expectEvents(
        db: String, folder: TemporaryDirectory, worldcup: ([String]) throws -> ProgramRun
    )
        throws
    {
        let serve = try ServeProcess(db: db, home: folder.path + "/home")
        defer { serve.kill() }
        let viewer = try EventStream(port: try #require(URL(string: serve.viewerLink)?.port))
        let eventFields = Team.fields.filter { $0.eventKey != nil }
        let rowFields = eventFields.filter { $0.name != Team.sectionAttribute }
        let nameKey = try #require(Team.fields.first { $0.name == "teamName" }?.eventKey)

        let snapshot = try viewer.next()
        #expect(snapshot.name == "snapshot")
        let part = try #require(try JSONSerialization.jsonObject(with: Data(snapshot.data.utf8)) as? [String: Any])
        let rows = ((part["sections"] as? [[String: Any]]) ?? []).flatMap { ($0["rows"] as? [[Any]]) ?? [] }
        #expect(rows.count == Self.teams.count)
        let namePlace = try #require(rowFields.firstIndex { $0.name == "teamName" })
        for row in rows {
            #expect(row.count == rowFields.count)
            let team = try Self.team(of: [nameKey: row[namePlace]], nameKey: nameKey)
            for (field, json) in zip(rowFields, row) where field.isUserSet {
                #expect(Self.value(json) == field.value(of: team), "\(field.name) of \(team.teamName)")
            }
        }

        var won = Self.teams[1].team
        _ = try worldcup(["win", won.teamName])
        won.wins += 1
        let change = try viewer.next()
        #expect(change.name == "change")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(change.data.utf8)) as? [String: Any])
        let object = try #require(((body["rows"] as? [[String: Any]]) ?? []).first?["team"] as? [String: Any])
        #expect(Set(object.keys) == Set(eventFields.compactMap(\.eventKey)))
        for field in eventFields where field.isUserSet {
            #expect(Self.value(object[field.eventKey!]) == field.value(of: won), "\(field.name) in the change")
        }
    }
}
