import Foundation
import GRDB
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// One malformed seed and where its error must point.
struct MalformedSeed: CustomTestStringConvertible, Sendable {
    let name: String
    let bytes: [UInt8]
    let entry: Int?
    let field: String?
    /// Words the message must contain so the user knows what is wrong.
    let mentions: String

    init(_ name: String, _ text: String, entry: Int?, field: String?, mentions: String) {
        self.init(name, Array(text.utf8), entry: entry, field: field, mentions: mentions)
    }

    init(_ name: String, _ bytes: [UInt8], entry: Int?, field: String?, mentions: String) {
        self.name = name
        self.bytes = bytes
        self.entry = entry
        self.field = field
        self.mentions = mentions
    }

    var testDescription: String { name }

    static let valid = #"{"teamName": "Algeria", "qualifyingZone": "Africa", "imageName": "algeria-flag", "wins": 0}"#

    static let all: [MalformedSeed] = [
        .init("syntax: unclosed array", "[\(valid)", entry: nil, field: nil, mentions: "not valid JSON"),
        .init(
            "syntax: garbage on line 3", "[\n\(valid),\n{\"teamName\": oops}]", entry: nil, field: nil,
            mentions: "line 3"),
        .init("syntax: empty file", "", entry: nil, field: nil, mentions: "not valid JSON"),
        .init("top level is an object", valid, entry: nil, field: nil, mentions: "array of teams"),
        .init("entry is not an object", "[\(valid), 42]", entry: 1, field: nil, mentions: "must be an object"),
        .init("empty array", "[]", entry: nil, field: nil, mentions: "no teams"),
        .init(
            "missing teamName", #"[{"qualifyingZone": "Africa", "imageName": "x", "wins": 0}]"#, entry: 0,
            field: "teamName", mentions: "missing"),
        .init(
            "missing qualifyingZone", "[\(valid), {\"teamName\": \"Ghana\", \"imageName\": \"x\", \"wins\": 0}]",
            entry: 1, field: "qualifyingZone", mentions: "missing"),
        .init(
            "missing wins", #"[{"teamName": "Ghana", "qualifyingZone": "Africa", "imageName": "x"}]"#, entry: 0,
            field: "wins", mentions: "missing"),
        .init(
            "wins is a string", #"[{"teamName": "Ghana", "qualifyingZone": "Africa", "imageName": "x", "wins": "3"}]"#,
            entry: 0, field: "wins", mentions: "whole number"),
        .init(
            "wins is a fraction",
            #"[{"teamName": "Ghana", "qualifyingZone": "Africa", "imageName": "x", "wins": 2.5}]"#, entry: 0,
            field: "wins", mentions: "whole number"),
        .init(
            "wins is too large",
            #"[{"teamName": "Ghana", "qualifyingZone": "Africa", "imageName": "x", "wins": 1e30}]"#, entry: 0,
            field: "wins", mentions: "too large"),
        .init(
            "negative wins",
            "[\(valid), {\"teamName\": \"Ghana\", \"qualifyingZone\": \"Africa\", \"imageName\": \"x\", \"wins\": -2}]",
            entry: 1, field: "wins", mentions: "0 or more"),
        .init(
            "teamName is a number", #"[{"teamName": 7, "qualifyingZone": "Africa", "imageName": "x", "wins": 0}]"#,
            entry: 0, field: "teamName", mentions: "must be text"),
        .init(
            "teamName is null", #"[{"teamName": null, "qualifyingZone": "Africa", "imageName": "x", "wins": 0}]"#,
            entry: 0, field: "teamName", mentions: "null"),
        .init(
            "empty teamName", #"[{"teamName": "", "qualifyingZone": "Africa", "imageName": "x", "wins": 0}]"#, entry: 0,
            field: "teamName", mentions: "empty"),
        .init(
            "blank teamName", #"[{"teamName": " \t ", "qualifyingZone": "Africa", "imageName": "x", "wins": 0}]"#,
            entry: 0, field: "teamName", mentions: "empty"),
        .init(
            "empty qualifyingZone", #"[{"teamName": "Ghana", "qualifyingZone": "", "imageName": "x", "wins": 0}]"#,
            entry: 0, field: "qualifyingZone", mentions: "empty"),
        // SQLite hands text back to C as far as its first NUL: "E\u0000x" would be kept as "E".
        .init(
            "NUL in teamName", #"[{"teamName": "E\u0000x", "qualifyingZone": "Africa", "imageName": "x", "wins": 0}]"#,
            entry: 0, field: "teamName", mentions: "NUL"),
        .init(
            "NUL in qualifyingZone",
            #"[\#(valid), {"teamName": "Ghana", "qualifyingZone": "Af\u0000rica", "imageName": "x", "wins": 0}]"#,
            entry: 1, field: "qualifyingZone", mentions: "NUL"),
        .init(
            "NUL in imageName",
            #"[{"teamName": "Ghana", "qualifyingZone": "Africa", "imageName": "x\u0000", "wins": 0}]"#,
            entry: 0, field: "imageName", mentions: "NUL"),
        .init(
            "imageName is a number", #"[{"teamName": "Ghana", "qualifyingZone": "Africa", "imageName": 5, "wins": 0}]"#,
            entry: 0, field: "imageName", mentions: "must be text"),
        .init(
            "duplicate name",
            #"[\#(valid), {"teamName": "Ghana", "qualifyingZone": "Africa", "imageName": "x", "wins": 0}, \#(valid)]"#,
            entry: 2, field: "teamName", mentions: "entry 0"),
        .init(
            "duplicate name in another case",
            #"[\#(valid), {"teamName": "ALGERIA", "qualifyingZone": "Africa", "imageName": "x", "wins": 0}]"#, entry: 1,
            field: "teamName", mentions: "case-insensitive"),
        .init(
            "invalid UTF-8",
            Array("[{\"teamName\": \"Alg".utf8) + [0xC3, 0x28]
                + Array("\", \"qualifyingZone\": \"Africa\", \"imageName\": \"x\", \"wins\": 0}]".utf8), entry: nil,
            field: nil, mentions: "UTF-8"),
        .init(
            "UTF-16 file", Array([0xFF, 0xFE] + "[]".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }), entry: nil,
            field: nil, mentions: "UTF-8"),
    ]
}

@Suite struct MalformedSeedTests {
    @Test(arguments: MalformedSeed.all)
    func reportsFileEntryAndFieldAndLeavesStoreUntouched(seed: MalformedSeed) throws {
        let directory = TemporaryDirectory()
        let seedPath = directory.file("bad-seed.json", data: Data(seed.bytes))
        let store = try TeamStore.open(path: directory.path + "/store.sqlite")

        let error = #expect(throws: WorldCupError.self) {
            try store.seedIfNeeded { .file(seedPath) }
        }
        guard case let .seedInvalid(problem)? = error else {
            Issue.record("expected a seed problem, got \(String(describing: error))")
            return
        }
        #expect(problem.file == seedPath)
        #expect(problem.entryIndex == seed.entry)
        #expect(problem.field == seed.field)
        #expect(problem.description.contains(seed.mentions), "\(problem.description)")
        #expect(problem.description.hasPrefix(seedPath))

        // Nothing was written: no teams, and the store still counts as never seeded.
        #expect(try Fixtures.teamCount(store) == 0)
        #expect(try !store.isSeeded())
    }

    @Test(arguments: MalformedSeed.all)
    func importIntoASeededStoreChangesNothing(seed: MalformedSeed) throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        try store.addWins(to: "Brazil", count: 4)
        let before = try store.teamsInStandingsOrder()
        let path = directory.file("bad.json", data: Data(seed.bytes))
        #expect(throws: WorldCupError.self) {
            try store.importTeams(from: .file(path))
        }
        #expect(try store.teamsInStandingsOrder() == before)
    }

    @Test func importOfANameAlreadyInTheStoreNamesTheEntryAndImportsNothing() throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        let path = directory.file(
            "more.json",
            contents: """
                [{"teamName": "Wenderland", "qualifyingZone": "Internets", "imageName": null, "wins": 1},
                 {"teamName": "brazil", "qualifyingZone": "South America", "imageName": null, "wins": 0}]
                """)
        let error = #expect(throws: WorldCupError.self) {
            try store.importTeams(from: .file(path))
        }
        #expect(
            error
                == .seedInvalid(
                    SeedProblem(
                        file: path, entryIndex: 1, field: "teamName",
                        message: "a team named \"brazil\" is already in the store",
                        remedy: .skipTeamsInStore)))
        #expect(try Fixtures.teamCount(store) == 32)
    }

    @Test func unreadableSeedSaysWhy() throws {
        let directory = TemporaryDirectory()
        let missing = directory.path + "/nope.json"
        #expect(throws: WorldCupError.fileUnreadable(path: missing, kind: .seed, reason: "no such file")) {
            try SeedFile.read(path: directory.path + "/nope.json")
        }
        #expect(throws: WorldCupError.fileIsAFolder(path: directory.path, kind: .importFile)) {
            try SeedFile.read(path: directory.path, kind: .importFile)
        }
    }
}
