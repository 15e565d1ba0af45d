import ArgumentParser

/// A command under `worldcup`, which the scoreboard's own options do not apply to.
///
/// argument-parser reads the root command's options wherever they stand, so without a check
/// `worldcup win Brazil --log scores.log` would take a `--log` that no win is written to.
protocol Subcommand: ParsableCommand {
    /// The root command as parsed (`@ParentCommand`), to see which of its options were given.
    var root: WorldCup { get }
}

extension Subcommand {
    /// Throws a usage error naming the first of the scoreboard's options given, but those the
    /// command takes too (`allowing`: the corrections' `--log`).
    func refuseScoreboardOptions(allowing allowed: Set<String> = []) throws {
        let given = [
            ("--log", root.log != nil), ("--stats", root.stats != nil), ("--flags", root.flags),
            ("--no-color", root.noColor), ("--screen-reader", root.screenReader),
        ]
        guard let option = given.first(where: { $0.1 && !allowed.contains($0.0) })?.0 else { return }
        throw ValidationError(
            "\(option) is an option of the scoreboard (worldcup \(option) …), not of worldcup \(Self._commandName).")
    }
}
