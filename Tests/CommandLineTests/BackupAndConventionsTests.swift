import Foundation
import TestSupport
import Testing

/// What people who script the command line expect: one error style, backups that restore, whole
/// names in pipes, and an install that works from anywhere.
@Suite struct BackupAndConventionsTests {
    static func storeArguments(_ directory: TemporaryDirectory, _ name: String = "store.sqlite") -> [String] {
        ["--db", directory.path + "/" + name, "--seed", WorldCupProcess.seedPath]
    }

    @Test func everyErrorHasOneStyleAndADocumentedStatus() throws {
        let directory = TemporaryDirectory()
        let store = Self.storeArguments(directory)
        let spaced = try WorldCupProcess.run(["win", "Brazil", "--count", "-1"] + store)
        let joined = try WorldCupProcess.run(["win", "Brazil", "--count=-1"] + store)
        #expect(spaced.status == 64 && joined.status == 64, "a value out of range is a usage error")
        #expect(spaced.stderr == joined.stderr, "--count -1 and --count=-1 get the same message")
        #expect(spaced.stderr.hasPrefix("worldcup: "))

        let unknownOption = try WorldCupProcess.run(["list", "--frobnicate"] + store)
        #expect(unknownOption.status == 64, "usage errors: EX_USAGE")
        #expect(unknownOption.stderr.hasPrefix("worldcup: unknown option '--frobnicate'"), "\(unknownOption.stderr)")
        #expect(unknownOption.stdout.isEmpty)

        let unknownTeam = try WorldCupProcess.run(["win", "Atlantis"] + store)
        #expect(unknownTeam.status == 1 && unknownTeam.stderr.hasPrefix("worldcup: "))

        let help = try WorldCupProcess.run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE:") && help.stderr.isEmpty)
    }

    @Test func exportThenImportGivesTheSameStandings() throws {
        let directory = TemporaryDirectory()
        let original = Self.storeArguments(directory)
        #expect(try WorldCupProcess.run(["win", "Ghana", "--count", "4"] + original).status == 0)
        let add = ["add", "--name", "日本代表 🇯🇵", "--zone", "Internets"]
        #expect(try WorldCupProcess.run(add + original).status == 0)
        let backup = directory.path + "/backup.json"
        let exported = try WorldCupProcess.run(["export", backup] + original)
        try #require(exported.status == 0, "\(exported.stderr)")

        // A new store: the backup is its first content, instead of the seed.
        let restored = ["--db", directory.path + "/restored.sqlite", "--seed", WorldCupProcess.seedPath]
        let imported = try WorldCupProcess.run(["import", backup] + restored)
        try #require(imported.status == 0, "\(imported.stderr)")
        let before = try WorldCupProcess.run(["list", "--json"] + original).stdout
        let after = try WorldCupProcess.run(["list", "--json"] + restored).stdout
        #expect(before == after && before.contains("日本代表"))

        // Into a store that has some of the teams: refused as a whole, or the rest with --skip-existing.
        let again = try WorldCupProcess.run(["import", backup] + restored)
        #expect(again.status == 1 && again.stderr.contains("already in the store"))
        let extra = directory.file(
            "extra.json",
            contents: #"[{"teamName": "Wenderland", "qualifyingZone": "Internets", "wins": 2}, "#
                + #"{"teamName": "GHANA", "qualifyingZone": "Africa", "imageName": null, "wins": 0}]"#)
        let skipping = try WorldCupProcess.run(["import", extra, "--skip-existing"] + restored)
        #expect(skipping.status == 0, "\(skipping.stderr)")
        #expect(skipping.stdout == "Imported 1 team from \(extra); skipped 1 already in the store\n")
        let listed = try WorldCupProcess.run(["list"] + restored).stdout
        #expect(listed.contains("Wenderland") && listed.contains("Ghana"))
        #expect(
            try WorldCupProcess.run(["win", "Ghana"] + restored).stdout == "5\n", "the existing team was left as it was"
        )
    }

    @Test func listIntoAPipeKeepsWholeNames() throws {
        let directory = TemporaryDirectory()
        let store = Self.storeArguments(directory)
        let long = "The Most Extraordinarily Long Team Name Anyone Ever Typed Into A Scoreboard"
        #expect(try WorldCupProcess.run(["add", "--name", long, "--zone", "Africa"] + store).status == 0)
        let listed = try WorldCupProcess.run(["list"] + store).stdout
        #expect(listed.contains(long))
        #expect(!listed.contains("…"))
    }

    /// `make install` puts the binary, its seed and completions under PREFIX; the installed
    /// binary then works from any folder. (The same steps as `make install`, with the binary
    /// the tests already built instead of a release build.)
    @Test func installedBinaryWorksFromAnyFolder() throws {
        let prefix = TemporaryDirectory(), elsewhere = TemporaryDirectory()
        let make = try WorldCupProcess.runProgram(
            "/usr/bin/make",
            [
                "-C", WorldCupProcess.packageRoot.path, "install-files", "PREFIX=\(prefix.path)",
                "INSTALL_BIN=\(WorldCupProcess.binary)",
            ])
        try #require(make.status == 0, "\(make.stdout)\(make.stderr)")
        for file in [
            "bin/worldcup", "share/worldcup/seed.json", "share/bash-completion/completions/worldcup",
            "share/zsh/site-functions/_worldcup", "share/fish/vendor_completions.d/worldcup.fish",
        ] {
            #expect(FileManager.default.fileExists(atPath: prefix.path + "/" + file), "\(file)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: prefix.path + "/bin/worldcup")
        process.arguments = ["list"]
        process.currentDirectoryURL = URL(fileURLWithPath: elsewhere.path)
        process.environment = [
            "HOME": elsewhere.path, "XDG_DATA_HOME": elsewhere.path + "/data", "LANG": "C.UTF-8",
            "PATH": "/usr/bin:/bin",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let listed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(listed.hasPrefix("Africa (5 teams)"), "the installed seed was found: \(listed.prefix(200))")
        let completion = try String(
            contentsOfFile: prefix.path + "/share/bash-completion/completions/worldcup", encoding: .utf8)
        #expect(completion.contains("export") && completion.contains("--skip-existing"))
    }
}
