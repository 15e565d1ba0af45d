import ArgumentParser
import Foundation
import TerminalUI
import WorldCupModel

extension WorldCup {
    struct Follow: Subcommand {
        static let configuration = CommandConfiguration(
            commandName: "follow",
            abstract: "Print each change of the standings as it is committed, one line each, until stopped.",
            discussion: """
                For example: Germany +1 → 8 wins, ▲2 to 1st in Europe. Teams with equal wins in a zone \
                share a rank. Ends with status 0 at Ctrl-C, SIGTERM, or when its output closes.
                """)

        @ParentCommand var root: WorldCup

        @OptionGroup var store: StoreOptions

        @Flag(
            help: """
                Print one JSON object a line: change (new, removed, changed), id, teamName, zone, wins, \
                oldTeamName, oldZone, oldWins, newWins, oldRank, newRank, position (the change feed's).
                """)
        var json = false

        func validate() throws {
            try refuseScoreboardOptions()
        }

        func run() throws {
            let opened = try store.openSeededStore()
            let controller = opened.standingsController(cacheDirectory: nil)
            let standings = FollowedStandings()
            controller.delegate = standings
            let output = LineOutput()
            QuietStop.install()
            do {
                try controller.performFetch()
                try standings.start(from: controller)
                // On stderr, beside the data: a script waits for it to know that every change from
                // now on will be told.
                Messages.note(
                    "Following the standings of \(opened.displayName): each change is printed as it is committed. "
                        + "Ctrl-C stops.")
                var connected = true
                while true {
                    let woke = controller.wait(alongside: output.watched)
                    // Its reader closed the pipe: nobody is left to tell.
                    guard woke.readable.isEmpty else { return }
                    if woke.storeMayHaveChanged { try controller.processPendingChanges() }
                    // A person watching the lines would otherwise take a lost server for a quiet
                    // evening; the controller catches up by itself, with nothing lost.
                    switch (connected, controller.connectionState) {
                    case (true, .reconnecting(_, let lastError)):
                        let reason = lastError.split(separator: "\n").first.map(String.init) ?? lastError
                        Messages.note(
                            "Lost the connection to \(opened.displayName) (\(reason)); reconnecting. "
                                + "The changes made meanwhile are printed once it is back.")
                        connected = false
                    case (false, .connected):
                        Messages.note("Connected again to \(opened.displayName): following.")
                        connected = true
                    default:
                        break
                    }
                    for change in try standings.takeChanges() {
                        let line =
                            json
                            ? try change.json(position: controller.feedPosition)
                            : TerminalText.sanitized(change.sentence)
                        guard try output.write(line: line) else { return }
                    }
                }
            } catch let error where error is WorldCupError || error is StoreError {
                throw error
            } catch {
                throw WorldCupError.storeFailed(path: opened.displayName, reason: "\(error)")
            }
        }
    }
}
