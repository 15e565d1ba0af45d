import ArgumentParser
import Foundation
import WorldCupModel
import WorldCupStores

extension WorldCup {
    struct Import: Subcommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Add every team of a seed-shaped JSON file, all or nothing.",
            discussion: """
                The file is checked like the seed: an array of \(SeedEntry.keyList) \
                (\(SeedEntry.optionalKeySentence) may be left out). worldcup export writes such a file. Into a new store, the \
                file is its first content instead of the seed: a backup restores to exactly what it held.
                """)

        @ParentCommand var root: WorldCup

        @OptionGroup var store: StoreOptions

        @Argument(help: ArgumentHelp("The JSON file to import.", valueName: "file"))
        var file: String

        @Flag(help: "Leave out teams whose name is already in the store (ignoring case) instead of refusing the file.")
        var skipExisting = false

        func validate() throws {
            try refuseScoreboardOptions()
        }

        func run() throws {
            // A missing or unreadable file is said before a new store is made for it.
            try SeedFile.checkReadable(path: file, kind: .importFile)
            let source = SeedSource.file(file, kind: .importFile)
            let teamStore = try store.openStore()
            let progress = ImportProgressReporter.reporter(label: "Importing \((file as NSString).lastPathComponent)")
            // A new store takes the file as its first content, in place of the seed, so
            // that a backup (worldcup export) restores to exactly what it held.
            let seeded = try teamStore.seedIfNeeded(progress: progress) { source }
            let result =
                seeded > 0
                ? (imported: seeded, skipped: 0)
                : try teamStore.importTeams(from: source, skippingExisting: skipExisting, progress: progress)
            let skipped = result.skipped > 0 ? "; skipped \(result.skipped) already in the store" : ""
            try Messages.say(
                "Imported \(result.imported) team\(result.imported == 1 ? "" : "s") from \(file)\(skipped)")
        }
    }
}
