import Foundation
import TestSupport
import Testing

/// A folder given where a file is wanted gets that said, with the kind of file wanted, instead
/// of SQLite's or the file system's words for it; nothing is written into the folder.
@Suite struct FolderPathTests {
    static let cases: [(arguments: [String], says: String)] = [
        (["list", "--db", "FOLDER"], "the store FOLDER is a folder; --db needs the path of a store file"),
        (["win", "brazil", "--db", "FOLDER"], "the store FOLDER is a folder; --db needs the path of a store file"),
        (["export", "FOLDER"], "the export file FOLDER is a folder; give the path of a file to write"),
        (["import", "FOLDER"], "the import file FOLDER is a folder; give the path of a file"),
        (
            ["generate", "--teams", "10", "--output", "FOLDER"],
            "the output file FOLDER is a folder; --output needs the path of a file"
        ),
        (
            ["list", "--db", "new.sqlite", "--seed", "FOLDER"],
            "the seed file FOLDER is a folder; --seed needs the path of a seed file"
        ),
    ]

    @Test func aFolderWhereAFileIsWantedIsNamedAsOne() throws {
        for (given, says) in Self.cases {
            let directory = TemporaryDirectory()
            let folder = directory.path + "/folder"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            let environment = ["XDG_DATA_HOME": directory.path + "/data", "WORLDCUP_SEED": WorldCupProcess.seedPath]
            let arguments = given.map { $0 == "FOLDER" ? folder : $0 }
            let result = try WorldCupProcess.run(arguments, environment: environment, in: directory.path)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix("worldcup: " + says.replacingOccurrences(of: "FOLDER", with: folder)),
                "\(arguments): \(result.stderr)")
            let written = try FileManager.default.contentsOfDirectory(atPath: folder)
            #expect(written.isEmpty, "nothing written in the folder: \(written)")
        }
    }
}
