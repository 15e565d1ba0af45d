import ArgumentParser
import WorldCupModel

extension WorldCup {
    struct SetWins: Subcommand {
        static let configuration = CommandConfiguration(
            commandName: "set-wins",
            abstract: "Correct a team's wins: set them to N (0 or more), in one transaction.",
            discussion:
                "With --log FILE, the correction is added to the audit log: set-wins, its wins before and after.")

        @ParentCommand var root: WorldCup

        @OptionGroup var store: StoreOptions

        // Every word but the options: a negative number is read as one (and refused as one),
        // not as an unknown option.
        @Argument(
            parsing: .allUnrecognized,
            help: ArgumentHelp(
                "The team's name, any case (several words need no quotes), then its wins: worldcup set-wins Costa Rica 3.",
                valueName: "team-then-n"))
        var words: [String] = []

        func validate() throws {
            try refuseScoreboardOptions(allowing: ["--log"])
            _ = try parsed()
        }

        func run() throws {
            let (team, wins) = try parsed()
            let log = try CorrectionLog(path: root.log, store: store)
            let correction = try store.openSeededStore().setWins(of: team, to: wins)
            let before = correction.before
            try log.record(
                CommittedChange(
                    .setWins, teamID: before.id ?? 0, teamName: before.teamName,
                    values: .init(from: String(before.wins), to: String(wins))))
            try Messages.say("Set \(before.teamName)'s wins from \(before.wins) to \(wins)")
        }

        /// The team's name and the wins, from the words.
        private func parsed() throws -> (team: String, wins: Int) {
            if let option = words.first(where: { $0.hasPrefix("-") && Int($0) == nil }) {
                throw ValidationError("Unknown option '\(option)'")
            }
            guard words.count >= 2, let last = words.last else {
                throw ValidationError(
                    "set-wins needs the team's name and then its wins, such as: worldcup set-wins Costa Rica 3")
            }
            guard let wins = Int(last) else {
                throw ValidationError(
                    "the wins must be a whole number of 0 or more, not \"\(last)\" (the team's name comes first).")
            }
            guard wins >= 0 else { throw ValidationError(WorldCupError.negativeWins(wins).description) }
            return (words.dropLast().joined(separator: " "), wins)
        }
    }
}
