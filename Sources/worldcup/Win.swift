import ArgumentParser
import WorldCupModel

extension WorldCup {
    struct Win: Subcommand {
        static let configuration = CommandConfiguration(
            commandName: "win",
            abstract: "Add wins to a team (atomically) and print its new total.")

        @ParentCommand var root: WorldCup

        @OptionGroup var store: StoreOptions

        @Argument(
            help: ArgumentHelp(
                "The team's name, any case; several words need no quotes (worldcup win Costa Rica).",
                valueName: "team"))
        var team: [String]

        // Unconditional, so that "--count -1" is read as a number (and refused as one), the
        // same as "--count=-1", rather than as an unknown option.
        @Option(parsing: .unconditional, help: "How many wins to add (1 or more).")
        var count = 1

        func validate() throws {
            try refuseScoreboardOptions()
            guard count >= 1 else {
                throw ValidationError("--count must be a whole number of at least 1, not \(count).")
            }
        }

        func run() throws {
            let updated = try store.openSeededStore()
                .addWins(to: team.joined(separator: " "), count: count, key: ScoreKey())
            try StandardOutput.write("\(updated.wins)\n", workDone: true)
        }
    }
}
