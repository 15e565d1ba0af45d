import ArgumentParser
import Foundation
import TerminalUI
import WorldCupModel

extension WorldCup {
    struct List: Subcommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Print the sections and their teams in standings order.",
            discussion: "Zones ascending; inside a zone, wins descending, then name ascending (ignoring case).")

        @ParentCommand var root: WorldCup

        @OptionGroup var store: StoreOptions

        @Flag(help: "Print JSON: [{\"zone\": …, \"teams\": [{\"teamName\": …, \"wins\": …, …}]}].")
        var json = false

        func validate() throws {
            try refuseScoreboardOptions()
        }

        func run() throws {
            try Self.printStandings(store: store, json: json)
        }

        static func printStandings(store options: StoreOptions, json: Bool) throws {
            TextWidth.prepareLocale()
            let standings = try options.openSeededStore(onlyToRead: true).standings()
            // On a terminal long names are cut to keep the wins in view; into a pipe or a file
            // every name goes whole.
            let nameColumns = isatty(STDOUT_FILENO) == 1 ? StandingsFormatter.maximumNameColumns : nil
            let output =
                json
                ? try StandingsJSON.encode(standings)
                : StandingsFormatter.text(standings, maximumNameColumns: nameColumns)
            try StandardOutput.write(output, workDone: false)
        }
    }
}
