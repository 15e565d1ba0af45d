import Foundation
import TestSupport
import Testing

/// The README's table of exit statuses, row by row: every example it gives is run as written,
/// in a fresh folder with a new store, and must end with that row's status.
@Suite struct ExitStatusTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var status: Int32
        var meaning: String
        var examples: [String]
        var testDescription: String { "\(status): \(meaning.prefix(30))" }
    }

    static let heading = "Exit statuses"

    /// The table's rows; a README without the table gives no row, which the next test catches.
    static var rows: [Row] {
        ((try? Readme.table(after: heading)) ?? []).compactMap { cells in
            guard cells.count == 3, let status = Int32(cells[0]) else { return nil }
            let examples = Readme.codeSpans(cells[2]).filter { $0.hasPrefix("worldcup") }
            return Row(status: status, meaning: cells[1], examples: examples)
        }
    }

    @Test func theTableHasOneRowPerStatusWithExamples() throws {
        let rows = Self.rows
        #expect(rows.map(\.status) == [0, 1, 2, 64], "\(rows)")
        #expect(rows.allSatisfy { !$0.examples.isEmpty }, "\(rows)")
    }

    @Test(arguments: rows)
    func everyExampleEndsWithItsRowsStatus(_ row: Row) throws {
        for example in row.examples {
            let directory = TemporaryDirectory()
            let environment = ["XDG_DATA_HOME": directory.path + "/data", "WORLDCUP_SEED": WorldCupProcess.seedPath]
            let arguments = example.split(separator: " ").dropFirst().map(String.init)
            let result = try WorldCupProcess.run(arguments, environment: environment, in: directory.path)
            #expect(result.status == row.status, "\(example): \(result.stderr)")
            if row.status == 0 {
                #expect(result.stderr.isEmpty, "\(example): \(result.stderr)")
            } else {
                #expect(result.stderr.hasPrefix("worldcup: "), "\(example): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(example): \(result.stdout)")
            }
            if row.status == 64 {
                #expect(result.stderr.contains("Usage: worldcup"), "\(example): the usage follows: \(result.stderr)")
            }
        }
    }

    /// The messages of usage errors in option values say what is wrong with the value, not
    /// that it is missing (argument-parser reads "-5" as an option unless told otherwise).
    @Test func outOfRangeValuesSayWhatIsWrong() throws {
        let cases: [([String], String)] = [
            (["generate", "--teams", "-5", "--output", "x.json"], "worldcup: --teams must be at least 1, not -5"),
            (["generate", "--teams=-5", "--output", "x.json"], "worldcup: --teams must be at least 1, not -5"),
            (["generate", "--teams", "0", "--output", "x.json"], "worldcup: --teams must be at least 1, not 0"),
            (
                ["generate", "--zones", "37", "--output", "x.json"],
                "worldcup: --zones must be between 1 and 36, not 37"
            ),
            (
                ["generate", "--zones", "-1", "--output", "x.json"],
                "worldcup: --zones must be between 1 and 36, not -1"
            ),
            (["win", "brazil", "--count", "-1"], "worldcup: --count must be a whole number of at least 1, not -1"),
            (["win", "brazil", "--count", "0"], "worldcup: --count must be a whole number of at least 1, not 0"),
        ]
        let directory = TemporaryDirectory()
        for (arguments, message) in cases {
            let environment = ["XDG_DATA_HOME": directory.path + "/data"]
            let result = try WorldCupProcess.run(arguments, environment: environment, in: directory.path)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing was written")
    }
}
