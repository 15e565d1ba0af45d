import ArgumentParser
import Foundation
import WorldCupKit

extension WorldCup {
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a seed-shaped JSON file of made-up teams, for trying big stores (then: worldcup import FILE).",
            discussion: "Names are unique, some accented and some in CJK script; wins are random. The same --random-seed gives the same file.")

        @Option(help: "How many teams.")
        var teams = 1_000_000

        @Option(help: "Across how many qualifying zones (at most \(TeamGenerator.zones.count)).")
        var zones = 36

        @Option(help: "The seed of the random choices.")
        var randomSeed: UInt64 = 1

        @Option(help: ArgumentHelp("The file to write.", valueName: "file"))
        var output: String

        func run() throws {
            try reportingErrors {
                guard teams >= 1 else { throw CommandFailure("--teams must be at least 1") }
                guard (1...TeamGenerator.zones.count).contains(zones) else {
                    throw CommandFailure("--zones must be between 1 and \(TeamGenerator.zones.count)")
                }
                guard var writer = SeedFileWriter(path: output) else {
                    throw CommandFailure("cannot write \(output): check that its folder exists and is writable")
                }
                var generator = TeamGenerator(seed: randomSeed)
                try generator.forEachTeam(count: teams, zones: zones) { try writer.write($0) }
                try writer.finish()
                print("Wrote \(teams) teams in \(zones) zones to \(output)")
            }
        }
    }
}
