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
    /// comes out in one style and with its documented status (see ``Messages``). A command that
    /// waits (`serve`) runs as an `AsyncParsableCommand`.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var waiting = command as? any AsyncParsableCommand {
                try await waiting.run()
            } else {
                try command.run()
            }
        } catch {
            Messages.exit(reporting: error, arguments: Array(CommandLine.arguments.dropFirst()))
        }
    }

    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "worldcup",
        abstract:
            "The World Cup scoreboard: teams grouped by qualifying zone, wins kept in SQLite or shared on PostgreSQL.",
        discussion: """
            With no subcommand, opens the scoreboard in the terminal: arrow keys (or j/k) move, \
            Enter, Space or a click adds a win, u undoes, ? shows the keys, q quits. The store lives in \
            $XDG_DATA_HOME/worldcup/worldcup.sqlite (or ~/.local/share/worldcup/) unless --db says \
            otherwise; the first command to open a new store imports the seed (seed.json). With \
            --db postgresql://…, scoreboards on many machines keep one score together.
            """,
        version: "worldcup \(version) (SQLite \(LibraryVersions.sqlite), \(TerminalLibrary.version))",
        subcommands: [
            List.self, Win.self, Add.self, Import.self, Export.self, Generate.self, Serve.self, Follow.self,
            SetWins.self, Rename.self, Remove.self,
        ]
    )

    @OptionGroup var store: StoreOptions

    @Flag(help: "Show emoji flags instead of short team codes (terminals disagree on their width).")
    var flags = false

    @Flag(help: "No colours (also when the NO_COLOR environment variable is set).")
    var noColor = false

    @Flag(
        help: ArgumentHelp(
            "For screen readers: the cursor shown on the selected team, marked with >, and each change said on "
                + "the status line (also when WORLDCUP_SCREEN_READER is set to anything but 0)."))
    var screenReader = false

    @Option(
        help: ArgumentHelp(
            "When quitting, write timing figures (first frame, each key until the screen was updated, peak memory) "
                + "to this file.",
            valueName: "file"))
    var stats: String?

    @Option(
        help: ArgumentHelp(
            "Add one line per win, undo and added team to this file as each is committed: "
                + "time, action, score key, team id, name (README: the audit log).",
            valueName: "file"))
    var log: String?

    func run() throws {
        let sessionStats = stats.map(SessionStats.init(path:))
        // Said now rather than at the end of the session, when the figures would be lost.
        if let stats { try OutputFile.check(stats, kind: .stats, replacing: true) }
        if case let .sqlite(storePath) = try store.address() {
            for (path, kind) in [(stats, FileKind.stats), (log, .auditLog)] {
                if let path { try OutputFile.refuseStoreFiles(path, storePath: storePath, kind: kind) }
            }
        }
        guard TerminalLibrary.hasInteractiveTerminal else {
            throw NoUsableTerminal(
                description: "the scoreboard needs a terminal, and stdin or stdout is not one. "
                    + "To print the standings, use: worldcup list")
        }
        let environment = ProcessInfo.processInfo.environment
        let colors = !noColor && (environment["NO_COLOR"] ?? "").isEmpty
        let screenReaderVariable = environment["WORLDCUP_SCREEN_READER"] ?? ""
        let screenReader = screenReader || !(screenReaderVariable.isEmpty || screenReaderVariable == "0")
        let auditLog = try log.map(AuditLog.init(path:))
        // Not an option: docs/pictures.sh keeps others' changes highlighted for its whole run.
        let highlight = environment["WORLDCUP_HIGHLIGHT_SECONDS"].flatMap(Int.init).flatMap {
            $0 > 0 ? Duration.seconds($0) : nil
        }
        do {
            // A key press must not wait long for a server that went away: a score whose
            // commit is in doubt is kept and sent again when the server is back.
            let opened = try store.openSeededStore(doubtTimeout: .seconds(2))
            let exit = try ScoreboardSession.run(
                store: opened, showsFlags: flags, colors: colors, screenReader: screenReader,
                cacheDirectory: StoreLocation.defaultCacheDirectory(environment: environment), stats: sessionStats,
                auditLog: auditLog, changeHighlightDuration: highlight)
            // Stopped by a signal, the shell sees what it would have without the clean-up.
            if case let .stopSignal(number) = exit { throw ExitCode(128 + number) }
        } catch let error as TerminalError {
            throw NoUsableTerminal(
                description: error.description + " To print the standings without the scoreboard, use: worldcup list")
        }
    }
}
