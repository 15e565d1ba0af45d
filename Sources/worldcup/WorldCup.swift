import ArgumentParser
import Foundation
import TerminalUI
import WorldCupModel
import WorldCupScoreboard
import WorldCupStores

/// `worldcup`: the scoreboard, and the headless commands scripts use.
@main
struct WorldCup: ParsableCommand {
    /// Parses and runs like ArgumentParser's own `main()`, but every error a user can cause
    /// comes out in one style and with its documented status (see ``Messages``).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            Messages.exit(reporting: error, arguments: Array(CommandLine.arguments.dropFirst()))
        }
    }

    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "worldcup",
        abstract: "The World Cup scoreboard: teams grouped by qualifying zone, wins kept in SQLite or shared on PostgreSQL.",
        discussion: """
            With no subcommand, opens the scoreboard in the terminal: arrow keys (or j/k) move, \
            Enter, Space or a click adds a win, u undoes, ? shows the keys, q quits. The store lives in \
            $XDG_DATA_HOME/worldcup/worldcup.sqlite (or ~/.local/share/worldcup/) unless --db says \
            otherwise; the first command to open a new store imports the seed (seed.json). With \
            --db postgresql://…, scoreboards on many machines keep one score together.
            """,
        version: "worldcup \(version) (SQLite \(LibraryVersions.sqlite), \(TerminalLibrary.version))",
        subcommands: [List.self, Win.self, Add.self, Import.self, Export.self, Generate.self, Serve.self]
    )

    @OptionGroup var store: StoreOptions

    @Flag(help: "Show emoji flags instead of short team codes (terminals disagree on their width).")
    var flags = false

    @Flag(help: "No colours (also when the NO_COLOR environment variable is set).")
    var noColor = false

    @Option(help: ArgumentHelp("When quitting, write timing figures (first frame, each key until the screen was updated, peak memory) to this file.", valueName: "file"))
    var stats: String?

    /// For the reliability tests only, so hidden: this key makes the program trap, as a bug would.
    @Option(help: .hidden)
    var testCrashKey: String?

    /// For the reliability tests only, so hidden: a file that gets one line per committed win.
    @Option(help: .hidden)
    var testCommitLog: String?

    /// For the change-signal tests only, so hidden: seconds between an idle scoreboard's
    /// safety looks on SQLite (5 unless given).
    @Option(help: .hidden)
    var testSafetyLookSeconds: Int?

    func run() throws {
        let sessionStats = stats.map(SessionStats.init(path:))
        guard TerminalLibrary.hasInteractiveTerminal else {
            throw NoUsableTerminal(description: "the scoreboard needs a terminal, and stdin or stdout is not one. "
                + "To print the standings, use: worldcup list")
        }
        let environment = ProcessInfo.processInfo.environment
        let colors = !noColor && (environment["NO_COLOR"] ?? "").isEmpty
        do {
            let opened = try store.openSeededStore()
            // A key press must not wait long for a server that went away: a score whose
            // commit is in doubt is kept and sent again when the server is back.
            (opened as? PostgreSQLTeamStore)?.doubtTimeout = .seconds(2)
            if let testSafetyLookSeconds {
                (opened as? TeamStore)?.safetyLookInterval.withLock { $0 = .seconds(max(1, testSafetyLookSeconds)) }
            }
            try ScoreboardSession.run(
                store: opened, showsFlags: flags, colors: colors,
                cacheDirectory: StoreLocation.defaultCacheDirectory(environment: environment), stats: sessionStats,
                crashKey: testCrashKey?.first, commitLog: testCommitLog)
        } catch let error as TerminalError {
            throw NoUsableTerminal(
                description: error.description + " To print the standings without the scoreboard, use: worldcup list")
        }
    }
}
