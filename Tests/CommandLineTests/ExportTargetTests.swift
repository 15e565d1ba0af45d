import Foundation
import TestSupport
import Testing

/// A backup never costs what it backs up: `export` refuses the store's own files, replaces an
/// existing file only with `--force`, and writes through a link or into a device rather than
/// putting a file in its place.
@Suite struct ExportTargetTests {
    static func storeArguments(_ directory: TemporaryDirectory) -> [String] {
        ["--db", directory.path + "/store.sqlite", "--seed", WorldCupProcess.seedPath]
    }

    /// What `export` writes to standard output: what every file export must hold.
    static func exported(_ store: [String]) throws -> String {
        let result = try WorldCupProcess.run(["export"] + store)
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test func theStoreAndTheFilesBesideItAreRefusedEvenWithForce() throws {
        let directory = TemporaryDirectory()
        let store = Self.storeArguments(directory)
        let storePath = directory.path + "/store.sqlite"
        #expect(try WorldCupProcess.run(["win", "Ghana", "--count", "3"] + store).status == 0)
        let before = try WorldCupProcess.run(["list", "--json"] + store).stdout
        try FileManager.default.createSymbolicLink(
            atPath: directory.path + "/link.sqlite", withDestinationPath: storePath)
        for target in [
            storePath, directory.path + "/./store.sqlite", directory.path + "/link.sqlite", storePath + "-wal",
        ] {
            let result = try WorldCupProcess.run(["export", target, "--force"] + store)
            #expect(result.status == 1, "export \(target)")
            #expect(result.stderr.contains("is the store"), "\(result.stderr)")
            #expect(result.stderr.contains("Nothing was written"), "\(result.stderr)")
            #expect(try WorldCupProcess.run(["list", "--json"] + store).stdout == before, "export \(target)")
        }
    }

    /// `..` after a link leads out of the link's target, as the system opens the path.
    @Test func aDotDotAfterALinkedFolderIsFollowedAsTheSystemDoes() throws {
        let directory = TemporaryDirectory()
        let store = Self.storeArguments(directory)
        let files = FileManager.default
        try files.createDirectory(atPath: directory.path + "/a/real", withIntermediateDirectories: true)
        try files.createDirectory(atPath: directory.path + "/b", withIntermediateDirectories: false)
        try files.createSymbolicLink(
            atPath: directory.path + "/b/link", withDestinationPath: directory.path + "/a/real")
        let decoy = directory.file("b/x.json", contents: "not this one")
        let result = try WorldCupProcess.run(["export", "link/../x.json"] + store, in: directory.path + "/b")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: directory.path + "/a/x.json", encoding: .utf8) == Self.exported(store))
        #expect(try String(contentsOfFile: decoy, encoding: .utf8) == "not this one")
    }

    /// `/dev/stdout` is the descriptor the shell set up: `>>` appends to what the file held.
    @Test func devStdoutAppendsWhereTheShellSaid() throws {
        let directory = TemporaryDirectory()
        let store = Self.storeArguments(directory)
        let all = directory.file("all.json", contents: "before\n")
        let result = try WorldCupProcess.runProgram(
            "/bin/sh",
            ["-c", "exec \"$0\" \"$@\" >>\"$ALL\"", WorldCupProcess.binary, "export", "/dev/stdout"] + store,
            environment: ["ALL": all])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: all, encoding: .utf8) == "before\n" + Self.exported(store))
    }

    @Test func anExistingFileIsReplacedOnlyWithForce() throws {
        let directory = TemporaryDirectory()
        let store = Self.storeArguments(directory)
        let backup = directory.file("backup.json", contents: "last week's backup")
        let refused = try WorldCupProcess.run(["export", backup] + store)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("already exists") && refused.stderr.contains("--force"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: backup, encoding: .utf8) == "last week's backup")

        let replaced = try WorldCupProcess.run(["export", backup, "--force"] + store)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try String(contentsOfFile: backup, encoding: .utf8) == Self.exported(store))
    }

    @Test func aLinkIsWrittenThroughAndADeviceInto() throws {
        let directory = TemporaryDirectory()
        let store = Self.storeArguments(directory)
        let files = FileManager.default
        let target = directory.file("target.json", contents: "old")
        let link = directory.path + "/link.json"
        try files.createSymbolicLink(atPath: link, withDestinationPath: target)
        let throughLink = try WorldCupProcess.run(["export", link, "--force"] + store)
        #expect(throughLink.status == 0, "\(throughLink.stderr)")
        #expect(try files.destinationOfSymbolicLink(atPath: link) == target, "the link stays a link")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == Self.exported(store))

        // Writing into a device replaces nothing: no --force needed, and the device stays one.
        let toNull = directory.path + "/null.json"
        try files.createSymbolicLink(atPath: toNull, withDestinationPath: "/dev/null")
        let intoDevice = try WorldCupProcess.run(["export", toNull] + store)
        #expect(intoDevice.status == 0, "\(intoDevice.stderr)")
        #expect(try files.destinationOfSymbolicLink(atPath: toNull) == "/dev/null")
        #expect(try files.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType == .typeCharacterSpecial)
    }
}
