import ArgumentParser
import WorldCupKit

extension WorldCup {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add every team of a seed-shaped JSON file, all or nothing.",
            discussion: "The file is checked like the seed: an array of {teamName, qualifyingZone, imageName, wins}.")

        @OptionGroup var store: StoreOptions

        @Argument(help: ArgumentHelp("The JSON file to import.", valueName: "file"))
        var file: String

        func run() throws {
            try reportingErrors {
                let entries = try SeedFile.read(path: file)
                let teamStore = try store.openSeededStore()
                let count = try teamStore.importTeams(
                    entries, file: file, progress: ImportProgressReporter.reporter(label: "Importing \(file)"))
                print("Imported \(count) team\(count == 1 ? "" : "s") from \(file)")
            }
        }
    }
}
