import Foundation
import GRDB
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

@Suite struct SeedImportTests {
    @Test func firstLaunchImportsThirtyTwoTeamsInFiveZones() throws {
        let directory = TemporaryDirectory()
        let store = try TeamStore.open(path: directory.path + "/store.sqlite")
        let imported = try store.seedIfNeeded { .file(Fixtures.seedPath) }
        #expect(imported == 32)
        let standings = try store.standings()
        #expect(
            standings.map(\.zone) == [
                "Africa", "Asia", "Europe", "North, Central America & Caribbean", "South America",
            ])
        #expect(standings.map(\.teams.count) == [5, 4, 13, 4, 6])
        #expect(standings.flatMap(\.teams).allSatisfy { $0.wins == 0 && $0.imageName?.hasSuffix("-flag") == true })
    }

    @Test func secondLaunchImportsNothingAndDoesNotReadTheSeed() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/store.sqlite"
        _ = try Fixtures.seededStore(in: directory)
        let reopened = try TeamStore.open(path: path)
        var seedWasRead = false
        let imported = try reopened.seedIfNeeded {
            seedWasRead = true
            return .file(Fixtures.seedPath)
        }
        #expect(imported == 0)
        #expect(!seedWasRead)
        #expect(try Fixtures.teamCount(reopened) == 32)
    }

    @Test func deletingEveryTeamDoesNotBringTheSeedBack() throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        try store.pool.write { db in _ = try Team.deleteAll(db) }
        let reopened = try TeamStore.open(path: store.path)
        let imported = try reopened.seedIfNeeded { .file(Fixtures.seedPath) }
        #expect(imported == 0)
        #expect(try Fixtures.teamCount(reopened) == 0)
    }

    @Test func tutorialShapeWithBOMTrailingCommasAndNullImageLoads() throws {
        let text =
            "\u{FEFF}[\n  {\"teamName\": \"Algeria\", \"qualifyingZone\": \"Africa\", "
            + "\"imageName\": \"algeria-flag\", \"wins\": 0,},\n"
            + "  {\"teamName\": \"Wenderland\", \"qualifyingZone\": \"Internets\", "
            + "\"imageName\": null, \"wins\": 3},\n]\n"
        let entries = try SeedFile.parse(Data(text.utf8), file: "seed.json")
        #expect(
            entries == [
                SeedEntry(teamName: "Algeria", qualifyingZone: "Africa", imageName: "algeria-flag", wins: 0),
                SeedEntry(teamName: "Wenderland", qualifyingZone: "Internets", imageName: nil, wins: 3),
            ])
    }

    @Test func namesWithQuotesAndSQLAreStoredLiterally() throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        let hostile = ["Robert'); DROP TABLE team;--", "\"Quoted\" O'Neil", "x' OR '1'='1", "Semi; colon -- comment"]
        for name in hostile {
            try store.addTeam(name: name, zone: "Injections")
        }
        let stored = try store.pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT teamName FROM team WHERE qualifyingZone = 'Injections' ORDER BY teamName")
        }
        #expect(stored == hostile.sorted { NoCase.key($0).utf8.lexicographicallyPrecedes(NoCase.key($1).utf8) })
        #expect(try Fixtures.teamCount(store) == 32 + hostile.count)
        #expect(try store.addWins(to: "x' OR '1'='1").wins == 1)
        #expect(try store.teamsInStandingsOrder().filter { $0.wins > 0 }.map(\.teamName) == ["x' OR '1'='1"])
    }

    /// A name or zone holding a NUL (no argument can hold one, but a program calling the store
    /// can pass it) is refused: SQLite would keep it whole and hand back the part before the NUL.
    @Test func aNULInANewTeamsNameOrZoneIsRefused() throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        #expect(throws: WorldCupError.nulInField(field: "team name")) {
            try store.addTeam(name: "E\u{0}x", zone: "Internets")
        }
        #expect(throws: WorldCupError.nulInField(field: "qualifying zone")) {
            try store.addTeam(name: "Ex", zone: "Inter\u{0}nets")
        }
        #expect(try Fixtures.teamCount(store) == 32)
    }
}
