import Foundation
import TestSupport
import Testing

/// Small things people who use command lines expect: no file overwritten unasked, messages that
/// name a file by what it is for, the way out of a refusal, and a suggestion for a mistyped
/// command as for a mistyped option.
@Suite struct CommandLineHabitsTests {
    @Test func generateRefusesToOverwriteAFileUnlessForced() throws {
        let directory = TemporaryDirectory()
        let file = directory.file("teams.json", contents: "my only copy\n")
        let refused = try WorldCupProcess.run(["generate", "--teams", "5", "--output", file])
        #expect(refused.status == 1)
        #expect(
            refused.stderr == "worldcup: the output file \(file) already exists. Nothing was written; "
                + "pass --force to replace it, or choose another --output.\n", "\(refused.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "my only copy\n")
        let forced = try WorldCupProcess.run(["generate", "--teams", "5", "--output", file, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let teams = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [Any]
        #expect(teams?.count == 5)
    }

    /// The scoreboard's options given to a command are refused, not taken and ignored:
    /// `win Brazil --log scores.log` wrote no line, and said nothing.
    @Test(arguments: [
        ["win", "Brazil", "--log", "LOG"], ["add", "--name", "Wenderland", "--zone", "Internets", "--log", "LOG"],
        ["list", "--flags"], ["export", "--no-color"], ["import", "--stats", "LOG", "teams.json"],
        ["generate", "--teams", "5", "--output", "teams.json", "--flags"],
        ["serve", "--log", "LOG", "--listen", "nowhere"],
    ])
    func theScoreboardsOptionsAreRefusedByTheCommands(words: [String]) throws {
        let directory = TemporaryDirectory()
        let arguments = words.map { $0 == "LOG" ? directory.path + "/scores.log" : $0 }
        let result = try WorldCupProcess.run(
            arguments + ["--db", directory.path + "/store.sqlite", "--seed", WorldCupProcess.seedPath],
            in: directory.path)
        #expect(result.status == 64, "\(words): \(result.stderr)")
        #expect(result.stderr.contains("is an option of the scoreboard"), "\(words): \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/scores.log"))
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/store.sqlite"), "nothing was done")
    }

    /// A stats file that cannot be written is said at once, not when the scoreboard quits.
    @Test func aStatsFileInAMissingFolderIsRefusedAtStart() throws {
        let directory = TemporaryDirectory()
        let stats = directory.path + "/missing/stats.txt"
        let result = try WorldCupProcess.run(["--stats", stats, "--db", directory.store])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot write the stats file \(stats): its folder"), "\(result.stderr)")
    }

    /// Counts said as a person would: "1 team in 1 zone", not "1 teams in 36 zones"; "-1" and
    /// "86401" echoed as typed.
    @Test func numbersAreSaidAsTyped() throws {
        let directory = TemporaryDirectory()
        let one = try WorldCupProcess.run(["generate", "--teams", "1", "--output", directory.path + "/one.json"])
        #expect(one.stdout == "Wrote 1 team in 1 zone to \(directory.path)/one.json\n", "\(one.stdout)\(one.stderr)")
        for wait in ["-1", "86401", "1234567"] {
            let result = try WorldCupProcess.run(["list", "--lock-wait", wait, "--db", directory.store])
            #expect(result.status == 64)
            #expect(
                result.stderr.hasPrefix(
                    "worldcup: --lock-wait must be a number of seconds from 0 to 86400, not \(wait).\n"),
                "\(result.stderr)")
        }
    }

    /// No file a command writes may be the store: not the stats file, the log, nor generate's
    /// output (the default store, here), even with --force. A device is written into.
    @Test func theStoreIsNoCommandsOutput() throws {
        let directory = TemporaryDirectory()
        let environment = ["XDG_DATA_HOME": directory.path + "/data"]
        let defaultStore = directory.path + "/data/worldcup/worldcup.sqlite"
        let seed = ["--seed", WorldCupProcess.seedPath]
        #expect(try WorldCupProcess.run(["win", "Ghana"] + seed, environment: environment).status == 0)
        let before = try WorldCupProcess.run(["list", "--json"], environment: environment).stdout
        for arguments in [
            ["--stats", defaultStore], ["--log", defaultStore],
            ["generate", "--teams", "5", "--output", defaultStore, "--force"],
        ] {
            let result = try WorldCupProcess.run(arguments, environment: environment)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("is the store"), "\(arguments): \(result.stderr)")
        }
        #expect(try WorldCupProcess.run(["list", "--json"], environment: environment).stdout == before)

        let toNull = directory.path + "/null.json"
        try FileManager.default.createSymbolicLink(atPath: toNull, withDestinationPath: "/dev/null")
        let generated = try WorldCupProcess.run(["generate", "--teams", "5", "--output", toNull])
        #expect(generated.status == 0, "\(generated.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: toNull) == "/dev/null", "the link stays")
        #expect(
            try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType
                == .typeCharacterSpecial)
        let storeOption = try WorldCupProcess.run([
            "generate", "--teams", "5", "--output", toNull, "--db", defaultStore,
        ])
        #expect(storeOption.status == 64, "\(storeOption.stderr)")
        #expect(storeOption.stderr.contains("--db is not an option of worldcup generate"), "\(storeOption.stderr)")
    }

    @Test func aMissingImportFileIsCalledAnImportFile() throws {
        let directory = TemporaryDirectory()
        let result = try WorldCupProcess.run(["import", "nope.json", "--db", directory.store], in: directory.path)
        #expect(result.status == 1)
        #expect(result.stderr == "worldcup: cannot read the import file nope.json: no such file.\n", "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.store), "no store made for a file that is not there")
    }

    @Test func aMissingSeedFileIsCalledASeedFile() throws {
        let directory = TemporaryDirectory()
        let arguments = ["list", "--db", directory.store, "--seed", "nope.json"]
        let result = try WorldCupProcess.run(arguments, in: directory.path)
        #expect(result.status == 1)
        #expect(result.stderr == "worldcup: cannot read the seed file nope.json: no such file.\n", "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.store), "no store is made without its seed")
    }

    @Test func aDuplicateImportSaysHowToSkipTheTeamsAlreadyThere() throws {
        let directory = TemporaryDirectory()
        let store = ["--db", directory.store, "--seed", WorldCupProcess.seedPath]
        #expect(try WorldCupProcess.run(["list"] + store).status == 0)
        let again = try WorldCupProcess.run(["import", WorldCupProcess.seedPath] + store)
        #expect(again.status == 1)
        #expect(
            again.stderr == "worldcup: \(WorldCupProcess.seedPath), entry 0, field \"teamName\": "
                + "a team named \"Costa Rica\" is already in the store. "
                + "Nothing was imported; pass --skip-existing to import only the teams not in the store.\n",
            "\(again.stderr)")
    }

    @Test func aMistypedCommandGetsASuggestion() throws {
        for (typed, meant) in [("lsit", "list"), ("expotr", "export"), ("wni", "win"), ("improt", "import")] {
            let result = try WorldCupProcess.run([typed])
            #expect(result.status == 64)
            #expect(
                result.stderr.hasPrefix("worldcup: unexpected argument '\(typed)'. Did you mean '\(meant)'?\n"),
                "\(result.stderr)")
            #expect(result.stderr.contains("Usage: worldcup"))
        }
        let far = try WorldCupProcess.run(["frobnicate"])
        #expect(far.status == 64, "\(far.stderr)")
        #expect(far.stderr.hasPrefix("worldcup: unexpected argument 'frobnicate'\n"), "no suggestion: \(far.stderr)")
        let json = try WorldCupProcess.run(["list", "--jsn"])
        #expect(json.stderr.hasPrefix("worldcup: unknown option '--jsn'. Did you mean '--json'?\n"), "\(json.stderr)")
    }
}
