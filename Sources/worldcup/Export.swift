import ArgumentParser
import Foundation
import WorldCupKit

extension WorldCup {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write every team as a seed-shaped JSON file, a backup that worldcup import reads back.",
            discussion: """
                The file is an array of {teamName, qualifyingZone, imageName, wins} in standings order. \
                To restore it into a new store: worldcup import FILE --db NEW.sqlite; into a store that \
                has some of the teams: add --skip-existing.
                """)

        @OptionGroup var store: StoreOptions

        @Argument(help: ArgumentHelp("The file to write; - (or none) writes to standard output.", valueName: "file"))
        var file: String?

        func run() throws {
            try reportingErrors {
                let teams = try store.openSeededStore().teamsInStandingsOrder()
                let entries = teams.map {
                    SeedEntry(teamName: $0.teamName, qualifyingZone: $0.qualifyingZone, imageName: $0.imageName, wins: $0.wins)
                }
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                let data = try encoder.encode(entries) + Data("\n".utf8)
                guard let file, file != "-" else {
                    FileHandle.standardOutput.write(data)
                    return
                }
                guard FileManager.default.createFile(atPath: file, contents: data) else {
                    throw CommandFailure("cannot write \(file): check that its folder exists and is writable")
                }
                FileHandle.standardError.write(Data("Exported \(entries.count) team\(entries.count == 1 ? "" : "s") to \(file)\n".utf8))
            }
        }
    }
}
