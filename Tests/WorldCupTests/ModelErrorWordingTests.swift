import Foundation
import Testing
import WorldCupModel

/// The model's errors say what happened in its own words and leave what to do to a
/// ``Remedy``: no option or command of the command line, and no store's engine, is in the
/// model's messages, and a layer that words the remedies its own way gets its words in the
/// same message.
@Suite struct ModelErrorWordingTests {
    /// An error of each kind whose remedy a layer may word, and the model's.
    static let withRemedies: [WorldCupError] = [
        .noHomeDirectory(variable: "XDG_DATA_HOME"),
        .seedNotFound(tried: ["/usr/share/worldcup/seed.json"]),
        .fileIsAFolder(path: "/tmp", kind: .seed),
        .fileIsAFolder(path: "/tmp", kind: .importFile),
        .fileExists(path: "/tmp/teams.json", kind: .output),
        .unknownTeam(name: "Atlantis", suggestions: []),
        .storeDirectoryMissing(path: "/nowhere/s.sqlite"),
        .storeIsAFolder(path: "/tmp"),
        .storeNotADatabase(path: "/tmp/notes.txt", database: "a database"),
        .storeOfAnotherProgram(path: "/tmp/other.db", database: "a database"),
        .storeFolderUnreachable(path: "/locked/s.sqlite", folder: "/locked"),
        .storeFolderNotAFolder(path: "/tmp/file/s.sqlite"),
        .storeFolderUnwritable(path: "/ro/s.sqlite", folder: "/ro"),
        .seedInvalid(SeedProblem(file: "seed.json", entryIndex: 3, field: "wins", message: "wins must be 0 or more")),
    ]
    /// Errors whose advice is the same wherever they are shown.
    static let others: [WorldCupError] = [
        .fileIsTheStore(path: "/tmp/s.sqlite-wal", kind: .export, store: "/tmp/s.sqlite"),
        .storeCorrupt(path: "/tmp/s.sqlite"),
    ]

    @Test(arguments: withRemedies + others) func theModelNamesNoOptionCommandOrEngine(error: WorldCupError) {
        let message = error.lines.joined(separator: "\n")
        for word in ["--", "worldcup list", "worldcup export", "SQLite"] {
            #expect(!message.contains(word), "\(message)")
        }
    }

    @Test(arguments: withRemedies) func aLayerWordsEveryRemedyItsOwnWay(error: WorldCupError) {
        let message = error.lines(wording: { "«\($0)»" }).joined(separator: "\n")
        #expect(message.contains("«") && message.contains("»"), "\(message)")
        #expect(
            message.replacingOccurrences(of: "«", with: "").replacingOccurrences(of: "»", with: "")
                == error.lines.joined(separator: "\n"), "the remedy's words are all that differ")
    }
}
