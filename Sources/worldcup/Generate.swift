import ArgumentParser
import Foundation
import WorldCupModel
import WorldCupStores

extension WorldCup {
    struct Generate: Subcommand {
        static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract:
                "Write a seed-shaped JSON file of made-up teams, for trying big stores (then: worldcup import FILE).",
            discussion: """
                Names are unique, some accented and some in CJK script; wins are random. The same --random-seed \
                gives the same file. A file that exists is replaced only with --force.
                """)

        @ParentCommand var root: WorldCup

        // Unconditional, so that "--teams -5" is read as a number (and refused as one) rather
        // than as an option, which would leave --teams without its value.
        @Option(parsing: .unconditional, help: "How many teams (1 or more).")
        var teams = 1_000_000

        @Option(parsing: .unconditional, help: "Across how many qualifying zones (1 to \(TeamGenerator.zones.count)).")
        var zones = 36

        @Option(parsing: .unconditional, help: "The seed of the random choices.")
        var randomSeed: UInt64 = 1

        @Option(help: ArgumentHelp("The file to write.", valueName: "file"))
        var output: String

        @Flag(help: "Replace the file if it exists.")
        var force = false

        func validate() throws {
            try refuseScoreboardOptions()
            // Taken by the root command wherever they stand; generate writes a file, no store.
            if let option = [
                ("--db", root.store.db != nil), ("--seed", root.store.seed != nil),
                ("--lock-wait", root.store.lockWait != nil),
            ].first(where: { $0.1 })?.0 {
                throw ValidationError(
                    "\(option) is not an option of worldcup generate, which writes a file and no store.")
            }
            guard teams >= 1 else { throw ValidationError("--teams must be at least 1, not \(teams)") }
            guard (1...TeamGenerator.zones.count).contains(zones) else {
                throw ValidationError("--zones must be between 1 and \(TeamGenerator.zones.count), not \(zones)")
            }
        }

        func run() throws {
            // The default store is not generate's to replace, even with --force.
            if case let .sqlite(storePath) = try root.store.address() {
                try OutputFile.refuseStoreFiles(output, storePath: storePath, kind: .output)
            }
            try OutputFile.check(output, kind: .output, replacing: force)
            let toStandardOutput = OutputFile.isStandardOutput(output)
            guard var writer = toStandardOutput ? SeedFileWriter(handle: .standardOutput) : SeedFileWriter(path: output)
            else {
                throw WorldCupError.fileUnwritable(path: output, kind: .output, reason: "it could not be created")
            }
            var generator = TeamGenerator(seed: randomSeed)
            let starts = TeamGenerator.zones.map {
                SeedFileWriter.EntryStart(sharing: TeamGenerator.template(zone: $0))
            }
            var zonesUsed: UInt64 = 0  // a bit per zone: fewer teams than zones leave some empty
            try generator.forEachTeamUTF8(count: teams, zones: zones) { name, zone, wins in
                zonesUsed |= 1 << zone
                try writer.write(teamNameUTF8: name, after: starts[zone], wins: wins)
            }
            try writer.finish()
            let zoneCount = zonesUsed.nonzeroBitCount
            let result =
                "Wrote \(teams) team\(teams == 1 ? "" : "s") in \(zoneCount) zone\(zoneCount == 1 ? "" : "s") to \(output)"
            // Beside the data when the data is on standard output, as export's note is.
            if toStandardOutput { Messages.note(result) } else { try Messages.say(result) }
        }
    }
}
