import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

/// Every command on a shared PostgreSQL store, checked against the same commands on an SQLite
/// store: the two stores must print exactly the same.
@Suite(.serialized) struct SharedStoreCommandTests {
    /// Runs `arguments` against both stores; returns both results.
    static func both(
        _ arguments: [String], sqlite: String, postgresql: String
    ) throws
        -> (sqlite: WorldCupProcess.Result, postgresql: WorldCupProcess.Result)
    {
        let seed = ["--seed", WorldCupProcess.seedPath]
        return (
            try WorldCupProcess.run(arguments + ["--db", sqlite] + seed),
            try WorldCupProcess.run(arguments + ["--db", postgresql] + seed)
        )
    }

    @Test func everyCommandPrintsWhatItPrintsOnSQLite() throws {
        let directory = TemporaryDirectory()
        let database = try SharedDatabase()
        let tricky = [
            "Robert'); DROP TABLE team;--", "\u{1B}[31mRed\u{1B}[0m", "Ünïcödé 漢字", "100% _wild_ \\ \"quoted\"",
        ]
        var steps: [[String]] = [
            ["list"], ["win", "brazil"], ["win", "Costa", "Rica", "--count", "3"], ["win", "brasil"],
            ["add", "--name", "Wenderland", "--zone", "Internets"], ["add", "--name", "wENDERLAND", "--zone", "x"],
            ["add", "--name", "Nowhere", "--zone", "internets"], ["win", "--count", "0", "ghana"],
        ]
        steps += tricky.map { ["add", "--name", $0, "--zone", "Oddities"] } + tricky.map { ["win", $0] }
        steps += [["list"], ["list", "--json"], ["export"]]
        for step in steps {
            let (sqlite, postgresql) = try Self.both(step, sqlite: directory.store, postgresql: database.uri())
            #expect(postgresql.status == sqlite.status, "\(step): \(postgresql.stderr)")
            #expect(postgresql.stdout == sqlite.stdout, "\(step)")
            #expect(postgresql.stderr == sqlite.stderr, "\(step)")
        }
        // The names went in as parameters: the table is there and holds them literally.
        let names = Set(try database.connect().execute("SELECT team_name FROM team").rows.map { $0[0]! })
        #expect(Set(tricky).isSubset(of: names))
        #expect(names.count == 32 + 2 + tricky.count)
    }

    @Test func importAndExportRoundTripThroughPostgreSQL() throws {
        let directory = TemporaryDirectory()
        let source = try SharedDatabase(), target = try SharedDatabase()
        #expect(
            try WorldCupProcess.run([
                "win", "japan", "--count", "4", "--db", source.uri(), "--seed", WorldCupProcess.seedPath,
            ]).status == 0)
        let backup = directory.path + "/backup.json"
        let exported = try WorldCupProcess.run(["export", backup, "--db", source.uri()])
        try #require(exported.status == 0, "\(exported.stderr)")
        // Into a new database the file is its first content, in place of the seed.
        let imported = try WorldCupProcess.run(["import", backup, "--db", target.uri()])
        #expect(imported.stdout == "Imported 32 teams from \(backup)\n", "\(imported.stderr)")
        #expect(try target.wins() == source.wins())
        // Again: every name is there already; refused at the first entry, nothing imported.
        let again = try WorldCupProcess.run(["import", backup, "--db", target.uri()])
        #expect(again.status == 1)
        #expect(again.stderr.contains("entry 0, field \"teamName\": a team named"), "\(again.stderr)")
        let skipping = try WorldCupProcess.run(["import", backup, "--skip-existing", "--db", target.uri()])
        #expect(
            skipping.stdout.contains("Imported 0 teams") && skipping.stdout.contains("skipped 32"), "\(skipping.stdout)"
        )
        #expect(try target.wins().count == 32)
    }

    /// Eight programs open a new database at the same moment: the schema and the seed are made
    /// exactly once (the advisory lock), and every program sees the same 32 teams.
    @Test func aNewDatabaseIsSeededOnceWhenManyStartTogether() throws {
        let database = try SharedDatabase()
        let results = Mutex<[WorldCupProcess.Result]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let result = try? WorldCupProcess.run([
                "list", "--json", "--db", database.uri(), "--seed", WorldCupProcess.seedPath,
            ])
            results.withLock {
                $0.append(result ?? WorldCupProcess.Result(status: -1, stdout: "", stderr: "did not run"))
            }
        }
        let all = results.withLock { $0 }
        #expect(all.allSatisfy { $0.status == 0 }, "\(all.map(\.stderr))")
        #expect(Set(all.map(\.stdout)).count == 1)
        let connection = try database.connect()
        #expect(try connection.execute("SELECT count(*) FROM team").scalar == "32")
        #expect(try connection.execute("SELECT count(*) FROM seed_marker").scalar == "1")
        // Each migration once: one row per version, 1 to the latest.
        let versions =
            "SELECT count(*) = count(DISTINCT version) AND count(*) = max(version) FROM worldcup_schema_version"
        #expect(try connection.execute(versions).scalar == "t")
    }

    @Test func aPasswordInTheURIIsRefusedWithoutShowingIt() throws {
        let result = try WorldCupProcess.run(["list", "--db", "postgresql://alice:s3cret@localhost/worldcup"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("PGPASSWORD or ~/.pgpass"), "\(result.stderr)")
        #expect(!result.stderr.contains("s3cret"))
    }

    @Test func anUnreachableServerIsNamedWithLibpqsReason() throws {
        let result = try WorldCupProcess.run([
            "win", "brazil", "--db", "postgresql://nobody@/worldcup?host=/nonexistent&port=5999",
        ])
        #expect(result.status == 1)
        #expect(
            result.stderr.hasPrefix("worldcup: cannot reach the PostgreSQL server nobody@/nonexistent:5999/worldcup: "),
            "\(result.stderr)")
        #expect(result.stderr.contains("/nonexistent/.s.PGSQL.5999"), "libpq's own words: \(result.stderr)")
    }

    /// The README's shared scoreboard from nothing, its blocks run as written (see
    /// ``ReadmeSharedSetup``): a viewer reads, a scorer scores, an organiser adds teams.
    @Test func theREADMEsSetupGivesEachLoginItsRights() throws {
        let setup = try ReadmeSharedSetup(worldcup: WorldCupProcess.binary)
        #expect(setup.logins.keys.sorted() == ["organiser", "scorer", "viewer"], "\(setup.logins)")
        func run(_ role: String, _ arguments: [String]) throws -> WorldCupProcess.Result {
            try WorldCupProcess.run(arguments + ["--db", setup.uri(role: role)])
        }
        let list = try run("viewer", ["list"])
        #expect(list.status == 0 && list.stdout.contains("Brazil"), "\(list.stderr)")
        let viewer = setup.logins["viewer"] ?? ""
        let viewerWin = try run("viewer", ["win", "brazil"])
        #expect(viewerWin.status == 1)
        #expect(
            viewerWin.stderr.contains("read-only: the PostgreSQL role \"\(viewer)\" may not add wins"),
            "\(viewerWin.stderr)")
        #expect(try run("scorer", ["win", "brazil", "--count", "2"]).stdout == "2\n")
        let scorerAdd = try run("scorer", ["add", "--name", "Wenderland", "--zone", "Internets"])
        #expect(scorerAdd.status == 1 && scorerAdd.stderr.contains("may not add teams"), "\(scorerAdd.stderr)")
        let organiserAdd = try run("organiser", ["add", "--name", "Wenderland", "--zone", "Internets"])
        #expect(organiserAdd.status == 0, "\(organiserAdd.stderr)")
        #expect(try run("organiser", ["win", "wenderland"]).stdout == "1\n")
        struct Section: Decodable { var teams: [Entry] }
        struct Entry: Decodable { var teamName: String; var wins: Int }
        let owner = try WorldCupProcess.run(["list", "--json", "--db", setup.ownerURI])
        let sections = try JSONDecoder().decode([Section].self, from: Data(owner.stdout.utf8))
        let wins = Dictionary(uniqueKeysWithValues: sections.flatMap(\.teams).map { ($0.teamName, $0.wins) })
        #expect(wins["Brazil"] == 2 && wins["Wenderland"] == 1 && wins.count == 33, "\(wins)")
    }

    /// `serve` as each login of the README's roles: the organiser makes the scorer token and
    /// serves; a scorer serves with that token and scores a tap; a viewer serves read-only, and
    /// is told to when it asks for more.
    @Test func theREADMEsRolesRunServeAsItSays() throws {
        let setup = try ReadmeSharedSetup(worldcup: WorldCupProcess.binary)
        let folder = TemporaryDirectory()
        let home = folder.path + "/home"
        let organiser = try ServeProcess(db: setup.uri(role: "organiser"), home: home)
        let token = try #require(organiser.token)
        #expect(organiser.stop() == 0)

        let scorer = try ServeProcess(db: setup.uri(role: "scorer"), home: home)
        #expect(scorer.token == token)
        let page = try HTTPClient.request("GET", scorer.viewerLink).text
        let marker = try #require(page.range(of: "<span class=\"name\">Brazil</span>"))
        let idStart = try #require(page[..<marker.lowerBound].range(of: "data-id=\"", options: .backwards))
        let brazil = try #require(Int(page[idStart.upperBound...].prefix { $0 != "\"" }))
        let tap = try HTTPClient.request(
            "POST", scorer.base + "/teams/\(brazil)/wins",
            headers: ["Authorization": "Bearer \(token)", "Idempotency-Key": UUID().uuidString])
        #expect(tap.status == 200, "\(tap.text)")
        #expect(try scorer.wins()["Brazil"] == 1)
        #expect(scorer.stop() == 0)

        let viewer = try ServeProcess(db: setup.uri(role: "viewer"), home: home, arguments: ["--read-only"])
        #expect(viewer.scorerLink == nil)
        #expect(try viewer.wins()["Brazil"] == 1)
        #expect(viewer.stop() == 0)
        let refused = try WorldCupProcess.run(
            ["serve", "--db", setup.uri(role: "viewer"), "--listen", "127.0.0.1:0"], environment: ["HOME": home])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("--read-only"), "\(refused.stderr)")
    }
}
