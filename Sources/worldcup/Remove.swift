import ArgumentParser
import Foundation
import WorldCupModel

extension WorldCup {
    struct Remove: Subcommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a team and its wins, in one transaction; asks first, unless --yes.",
            discussion: """
                At a terminal it asks for a yes; in a script, whose input is no terminal, it needs --yes. \
                With --log FILE, the removal is added to the audit log.
                """)

        @ParentCommand var root: WorldCup

        @OptionGroup var store: StoreOptions

        @Argument(
            help: ArgumentHelp(
                "The team's name, any case; several words need no quotes (worldcup remove Costa Rica).",
                valueName: "team"))
        var team: [String]

        @Flag(help: "Remove it without asking (needed when the input is not a terminal).")
        var yes = false

        func validate() throws {
            try refuseScoreboardOptions(allowing: ["--log"])
            guard yes || isatty(STDIN_FILENO) == 1 else {
                throw ValidationError(
                    "remove asks before it removes a team, and its input is not a terminal to ask on. "
                        + "Pass --yes to remove \"\(name)\" without asking.")
            }
        }

        private var name: String { team.joined(separator: " ") }

        func run() throws {
            let log = try CorrectionLog(path: root.log, store: store)
            let opened = try store.openSeededStore()
            if !yes { try Confirmation.ask(toRemove: name, in: opened) }
            let removed = try opened.removeTeam(named: name).before
            try log.record(CommittedChange(.remove, teamID: removed.id ?? 0, teamName: removed.teamName))
            try Messages.say("Removed \(removed.teamName) (\(removed.qualifyingZone), \(WinsText.of(removed.wins)))")
        }
    }
}
