import Foundation
import GRDB
import TestSupport
import Testing

@Suite struct CommandLineTests {
    @Test func concurrentWinsFromSeveralProcessesOnANewStoreAddUpExactly() throws {
        let directory = TemporaryDirectory()
        let processes = 4, winsEach = 40
        // Every process starts on a store that does not exist yet, so they also race to
        // create the schema and import the seed.
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: processes) { worker in
            for round in 0..<winsEach {
                let team = ["Brazil", "germany", "COSTA RICA", "Japan"][(worker + round) % 4]
                do {
                    let result = try WorldCupProcess.run([
                        "win", team, "--db", directory.store, "--seed", WorldCupProcess.seedPath,
                    ])
                    if result.status != 0 { failures.withLock { $0.append(result.stderr) } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let pool = try DatabasePool(path: directory.store)
        let (teams, totalWins) = try pool.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM team")!,
                try Int.fetchOne(db, sql: "SELECT sum(wins) FROM team")!
            )
        }
        #expect(teams == 32, "the seed was imported exactly once")
        #expect(totalWins == processes * winsEach)
    }

    /// Processes that create a new store at the same moment race on the WAL conversion (SQLite
    /// does not wait for it) and on the migrations; every one of them must succeed.
    @Test func eightProcessesCreatingOneNewStoreAllSucceed() throws {
        for round in 0..<8 {
            let directory = TemporaryDirectory()
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                do {
                    let result = try WorldCupProcess.run([
                        "win", "Brazil", "--db", directory.store, "--seed", WorldCupProcess.seedPath,
                    ])
                    if result.status != 0 { failures.withLock { $0.append(result.stderr) } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [], "round \(round)")
            let pool = try DatabasePool(path: directory.store)
            let (teams, brazil) = try pool.read { db in
                (
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM team")!,
                    try Int.fetchOne(db, sql: "SELECT wins FROM team WHERE teamName = 'Brazil'")!
                )
            }
            #expect(teams == 32 && brazil == 8, "round \(round)")
        }
    }

    @Test func winPrintsTheNewTotalAndIgnoresCase() throws {
        let directory = TemporaryDirectory()
        let args = ["--db", directory.store, "--seed", WorldCupProcess.seedPath]
        #expect(try WorldCupProcess.run(["win", "algeria"] + args).stdout == "1\n")
        #expect(try WorldCupProcess.run(["win", "ALGERIA", "--count", "2"] + args).stdout == "3\n")
        #expect(try WorldCupProcess.run(["win", "Bosnia", "and", "Herzegovina"] + args).stdout == "1\n")
    }

    @Test func generatedFileImportsAndListsInStoreOrder() throws {
        let directory = TemporaryDirectory()
        let file = directory.path + "/teams.json"
        let args = ["--db", directory.store, "--seed", WorldCupProcess.seedPath]
        let generated = try WorldCupProcess.run(["generate", "--teams", "2000", "--zones", "7", "--output", file])
        #expect(generated.status == 0 && generated.stdout == "Wrote 2000 teams in 7 zones to \(file)\n")
        let again = try WorldCupProcess.run(["generate", "--teams", "2000", "--zones", "7", "--output", file + ".2"])
        #expect(again.status == 0)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: file)) == Data(contentsOf: URL(fileURLWithPath: file + ".2")),
            "the same seed makes the same file")
        let imported = try WorldCupProcess.run(["import", file] + args)
        #expect(imported.status == 0, "\(imported.stderr)")
        let list = try WorldCupProcess.run(["list", "--json"] + args)
        struct Section: Decodable { var zone: String; var teams: [Entry] }
        struct Entry: Decodable { var teamName: String }
        let sections = try JSONDecoder().decode([Section].self, from: Data(list.stdout.utf8))
        #expect(sections.reduce(0) { $0 + $1.teams.count } == 2000, "into a new store, the file instead of the seed")
        let more = try WorldCupProcess.run(["import", WorldCupProcess.seedPath] + args)
        #expect(
            more.status == 0 && more.stdout.hasPrefix("Imported 32 teams"), "into a store with teams, added to them")

        let bad = try WorldCupProcess.run(["generate", "--teams", "0", "--output", file])
        #expect(bad.status != 0 && bad.stderr.contains("--teams must be at least 1"))
    }

    @Test func unknownTeamSuggestsTheClosestNames() throws {
        let directory = TemporaryDirectory()
        let result = try WorldCupProcess.run([
            "win", "Brasil", "--db", directory.store, "--seed", WorldCupProcess.seedPath,
        ])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == "worldcup: no team named \"Brasil\". Did you mean \"Brazil\"?\n")
    }

    @Test func listOrderEqualsSQLiteOrderByOnTheStoreFile() throws {
        let directory = TemporaryDirectory()
        let args = ["--db", directory.store, "--seed", WorldCupProcess.seedPath]
        // Mixed case, ties on wins, and a zone typed in another case (which joins "Europe").
        for (name, zone) in [
            ("aardvark United", "Europe"), ("ZULU", "europe"), ("zeta", "Asia"), ("Émile", "Asia"), ("ÉCOLE", "Asia"),
        ] {
            #expect(try WorldCupProcess.run(["add", "--name", name, "--zone", zone] + args).status == 0)
        }
        for (team, count) in [
            ("Switzerland", 6), ("Bosnia and Herzegovina", 6), ("zulu", 6), ("Japan", 2), ("zeta", 2),
        ] {
            #expect(try WorldCupProcess.run(["win", team, "--count", String(count)] + args).status == 0)
        }
        let list = try WorldCupProcess.run(["list", "--json"] + args)
        #expect(list.status == 0)
        struct Section: Decodable { var zone: String; var teams: [Entry] }
        struct Entry: Decodable { var teamName: String; var qualifyingZone: String; var wins: Int }
        let sections = try JSONDecoder().decode([Section].self, from: Data(list.stdout.utf8))
        let listed = sections.flatMap { $0.teams.map { "\($0.qualifyingZone)|\($0.wins)|\($0.teamName)" } }

        let sqlite = try WorldCupProcess.runProgram(
            "/usr/bin/sqlite3",
            [
                directory.store,
                "SELECT qualifyingZone || '|' || wins || '|' || teamName FROM team"
                    + " ORDER BY qualifyingZone, wins DESC, teamName, id",
            ])
        #expect(sqlite.status == 0, "\(sqlite.stderr)")
        #expect(listed == sqlite.stdout.split(separator: "\n").map(String.init))
        #expect(
            sections.map(\.zone) == ["Africa", "Asia", "Europe", "North, Central America & Caribbean", "South America"])
        let europe = sections[2].teams.map(\.teamName)
        #expect(Array(europe.prefix(4)) == ["Bosnia and Herzegovina", "Switzerland", "ZULU", "aardvark United"])
    }

    @Test func listTextAlignsWideNamesAndCountsTeams() throws {
        let directory = TemporaryDirectory()
        let args = ["--db", directory.store, "--seed", WorldCupProcess.seedPath]
        _ = try WorldCupProcess.run(["add", "--name", "日本代表", "--zone", "Asia"] + args)
        _ = try WorldCupProcess.run(["win", "Brazil", "--count", "12"] + args)
        let text = try WorldCupProcess.run(["list"] + args).stdout
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Africa (5 teams)")
        #expect(lines.contains("Asia (5 teams)"))
        // Every team line ends its wins column at the same display column.
        let teamLines = lines.filter { $0.hasPrefix("  ") }
        #expect(teamLines.count == 33)
        let widths = Set(
            teamLines.map { line in line.reduce(0) { $0 + (($1.unicodeScalars.first!.value >= 0x1100) ? 2 : 1) } })
        #expect(widths.count == 1, "\(widths)")
        #expect(teamLines.contains { $0.hasPrefix("  日本代表 ") })
    }

    @Test func addTheTutorialsSecretTeamMakesANewSectionInItsSortedPlace() throws {
        let directory = TemporaryDirectory()
        let args = ["--db", directory.store, "--seed", WorldCupProcess.seedPath]
        let added = try WorldCupProcess.run(["add", "--name", "Wenderland", "--zone", "Internets"] + args)
        #expect(added.stdout == "Added Wenderland to Internets\n")
        let again = try WorldCupProcess.run(["add", "--name", "wenderLAND", "--zone", "Internets"] + args)
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))
        let empty = try WorldCupProcess.run(["add", "--name", "  ", "--zone", "Internets"] + args)
        #expect(empty.status == 1)
        #expect(empty.stderr == "worldcup: the team name must not be empty.\n")
        let zones = try WorldCupProcess.run(["list"] + args).stdout.split(separator: "\n").filter {
            !$0.hasPrefix(" ") && !$0.isEmpty
        }
        #expect(
            zones == [
                "Africa (5 teams)", "Asia (4 teams)", "Europe (13 teams)", "Internets (1 team)",
                "North, Central America & Caribbean (4 teams)", "South America (6 teams)",
            ])
    }

    @Test func badSeedThroughTheCommandLineExitsNonZeroAndImportsNothing() throws {
        let directory = TemporaryDirectory()
        let seed = directory.path + "/bad.json"
        try Data(#"[{"teamName": "A", "qualifyingZone": "Z", "imageName": null, "wins": -1}]"#.utf8).write(
            to: URL(fileURLWithPath: seed))
        let result = try WorldCupProcess.run(["list", "--db", directory.store, "--seed", seed])
        #expect(result.status == 1)
        #expect(
            result.stderr == "worldcup: \(seed), entry 0, field \"wins\": must be 0 or more, not -1. "
                + "Nothing was imported; fix the file and try again.\n")
        let count = try DatabasePool(path: directory.store).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM team")
        }
        #expect(count == 0)
    }

    @Test func scoreboardWithoutATerminalRefusesAndPointsAtList() throws {
        let directory = TemporaryDirectory()
        let result = try WorldCupProcess.run(["--db", directory.store, "--seed", WorldCupProcess.seedPath])
        #expect(result.status != 0)
        #expect(result.stdout == "")
        #expect(result.stderr.contains("needs a terminal"))
        #expect(result.stderr.contains("worldcup list"))
    }

    @Test func defaultStoreLivesUnderXDGDataHomeAndIsCreatedOnDemand() throws {
        let directory = TemporaryDirectory()
        let result = try WorldCupProcess.run(
            ["win", "Ghana"],
            environment: [
                "XDG_DATA_HOME": directory.path + "/data", "WORLDCUP_SEED": WorldCupProcess.seedPath,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.path + "/data/worldcup/worldcup.sqlite"))
        let fallback = try WorldCupProcess.run(
            ["win", "Ghana"],
            environment: [
                "HOME": directory.path + "/home", "WORLDCUP_SEED": WorldCupProcess.seedPath,
            ])
        #expect(fallback.stdout == "1\n")
        #expect(FileManager.default.fileExists(atPath: directory.path + "/home/.local/share/worldcup/worldcup.sqlite"))
    }

    @Test func builtBinaryFindsTheRepositorysSeedByItself() throws {
        let directory = TemporaryDirectory()
        let result = try WorldCupProcess.run(["list", "--db", directory.store])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Africa (5 teams)\n"))
    }

    @Test func missingSeedListsEveryPlaceTried() throws {
        let directory = TemporaryDirectory()
        // A copy of the binary outside the source tree has no seed beside it.
        let copy = directory.path + "/worldcup"
        try FileManager.default.copyItem(atPath: WorldCupProcess.binary, toPath: copy)
        let result = try WorldCupProcess.runProgram(copy, ["list", "--db", directory.store])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no seed file was found"))
        #expect(result.stderr.contains(directory.path + "/seed.json"))
        #expect(result.stderr.contains("/usr/share/worldcup/seed.json"))
        #expect(result.stderr.contains("--seed PATH"))
    }

    @Test func helpKeepsTheSecretTeamSecret() throws {
        let help = try WorldCupProcess.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--flags"))
        #expect(help.stdout.contains("worldcup list") || help.stdout.contains("list"))
        for secret in ["shake", "Shake", "add a team", "Add Team", " S "] {
            #expect(!help.stdout.contains(secret), "--help mentions \(secret)")
        }
    }

    @Test func versionNamesTheLibraries() throws {
        let result = try WorldCupProcess.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("worldcup "))
        #expect(result.stdout.contains("SQLite 3."))
        #expect(result.stdout.contains("ncurses 6"))
    }

    @Test func storeThatIsNotSQLiteIsRefusedAndLeftAsItWas() throws {
        let directory = TemporaryDirectory()
        let garbage = Data("this is a shopping list, not a database\n".utf8)
        try garbage.write(to: URL(fileURLWithPath: directory.store))
        let result = try WorldCupProcess.run(["list", "--db", directory.store, "--seed", WorldCupProcess.seedPath])
        #expect(result.status == 1)
        #expect(result.stderr.contains("not an SQLite database"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.store)) == garbage)
    }
}
