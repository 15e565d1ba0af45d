import ArgumentParser
import WorldCupModel

extension WorldCup {
    struct Add: Subcommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a team with no wins; a new zone becomes a new section.")

        @ParentCommand var root: WorldCup

        @OptionGroup var store: StoreOptions

        @Option(help: "The new team's name (must not match an existing one, ignoring case).")
        var name: String

        @Option(help: "Its qualifying zone.")
        var zone: String

        func validate() throws {
            try refuseScoreboardOptions()
        }

        func run() throws {
            let team = try store.openSeededStore().addTeam(name: name, zone: zone)
            try Messages.say("Added \(team.teamName) to \(team.qualifyingZone)")
        }
    }
}
