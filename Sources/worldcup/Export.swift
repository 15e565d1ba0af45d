import ArgumentParser
import Foundation
import WorldCupModel

extension WorldCup {
    struct Export: Subcommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write every team as a seed-shaped JSON file, a backup that worldcup import reads back.",
            discussion: """
                The file is an array of \(SeedEntry.keyList) in standings order. \
                To restore it into a new store: worldcup import FILE --db NEW.sqlite; into a store that \
                has some of the teams: add --skip-existing. A file that exists is replaced only with --force; \
                the store's own files never are.
                """)

        @ParentCommand var root: WorldCup

        @OptionGroup var store: StoreOptions

        @Argument(help: ArgumentHelp("The file to write; - (or none) writes to standard output.", valueName: "file"))
        var file: String?

        @Flag(help: "Replace the file if it exists.")
        var force = false

        func validate() throws {
            try refuseScoreboardOptions()
        }

        func run() throws {
            let file = self.file.flatMap { $0 == "-" || OutputFile.isStandardOutput($0) ? nil : $0 }
            // A path that cannot be written is said before the store is opened (or made).
            if let file {
                if case let .sqlite(storePath) = try store.address() {
                    try OutputFile.refuseStoreFiles(file, storePath: storePath, kind: .export)
                }
                try OutputFile.check(file, kind: .export, replacing: force)
            }
            let teams = try store.openSeededStore(onlyToRead: true).teamsInStandingsOrder()
            let entries = teams.map { SeedEntry($0) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let json = String(decoding: try encoder.encode(entries), as: UTF8.self)
            let text = JSONText.escapingControls(json) + "\n"
            guard let file else { return try StandardOutput.write(text, workDone: false) }
            try OutputFile.write(Data(text.utf8), to: file, kind: .export)
            Messages.note("Exported \(entries.count) team\(entries.count == 1 ? "" : "s") to \(file)")
        }
    }
}
