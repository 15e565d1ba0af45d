import ArgumentParser
import WorldCupModel

extension WorldCup {
    struct Rename: Subcommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Correct a team's name, in one transaction.",
            discussion: """
                The new name must not be another team's, ignoring case; a team may take another spelling of \
                its own name. Quote names of several words: worldcup rename "Costa Rica" "Costa Rica FC". With \
                --log FILE, the correction is added to the audit log: rename, its names before and after.
                """)

        @ParentCommand var root: WorldCup

        @OptionGroup var store: StoreOptions

        @Argument(help: ArgumentHelp("The team's name, any case.", valueName: "team"))
        var team: String

        @Argument(help: ArgumentHelp("Its new name.", valueName: "new-name"))
        var newName: String

        func validate() throws {
            try refuseScoreboardOptions(allowing: ["--log"])
        }

        func run() throws {
            let log = try CorrectionLog(path: root.log, store: store)
            let correction = try store.openSeededStore().renameTeam(team, to: newName)
            let before = correction.before, after = correction.after?.teamName ?? newName
            try log.record(
                CommittedChange(
                    .rename, teamID: before.id ?? 0, teamName: before.teamName,
                    values: .init(from: before.teamName, to: after)))
            try Messages.say("Renamed \(before.teamName) to \(after)")
        }
    }
}
