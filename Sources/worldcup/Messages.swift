import ArgumentParser
import Foundation
import TerminalUI
import WorldCupModel
import WorldCupStores

/// What the command line says to a person, and how it exits, in one place.
///
/// Every message goes out through here, line by line through `TerminalText`, so a control
/// character in a name, a zone, a path or an argument is shown as U+FFFD and never reaches the
/// terminal raw (an escape sequence in a name must not rewrite what others see). Data is not a
/// message: `list` makes names visible itself, and JSON escapes what it holds.
///
/// Every error maps to its exit status here, the README's table: 0 done, 1 refused, 2 the
/// scoreboard has no usable terminal, 64 a usage error.
enum Messages {
    /// A command's result for a person, on stdout ("Added Wenderland to Internets"), once its
    /// work is done.
    static func say(_ line: String) throws {
        try StandardOutput.write(visible(line) + "\n", workDone: true)
    }

    /// A note beside data, on stderr, so that stdout keeps only the data ("Exported 32 teams …").
    static func note(_ line: String) {
        StandardError.write(visible(line) + "\n")
    }

    /// Says what went wrong, on stderr as `worldcup: …`, and exits with its status.
    static func exit(reporting error: any Error, arguments: [String]) -> Never {
        let status: Int32
        let lines: [String]
        switch error {
        case let error as WorldCupError:
            (status, lines) = (1, CommandLineAdvice.lines(for: error))
        case let error as PostgreSQLStoreError:
            (status, lines) = (1, [CommandLineAdvice.message(for: error)])
        case let error as StoreError:
            (status, lines) = (1, [error.description])
        case let error as NoUsableTerminal:
            (status, lines) = (2, [error.description])
        default:
            // argument-parser's own: usage errors (64) with the usage after the message, --help
            // and --version (0, on stdout), and anything else a command threw (1).
            status = WorldCup.exitCode(for: error).rawValue
            let text = WorldCup.fullMessage(for: error)
            guard status != 0 else {
                print(text)
                Foundation.exit(0)
            }
            lines = parserLines(text, arguments: arguments)
        }
        for (index, line) in lines.enumerated() where lines != [""] {
            StandardError.write((index == 0 ? "worldcup: " : "") + visible(line) + "\n")
        }
        Foundation.exit(status)
    }

    /// argument-parser's message in the program's style ("worldcup: unknown option …"), with a
    /// suggestion for a mistyped command as it makes one for a mistyped option.
    private static func parserLines(_ text: String, arguments: [String]) -> [String] {
        // An argument the message quotes is made visible whole first: a newline in it must not
        // pass for the end of the message's line.
        let quoted = arguments.reduce(text) { text, argument in
            argument == visible(argument) ? text : text.replacingOccurrences(of: argument, with: visible(argument))
        }
        var lines = quoted.components(separatedBy: "\n")
        guard var first = lines.first else { return [] }
        if first.hasPrefix("Error: ") { first.removeFirst("Error: ".count) }
        first = first.prefix(1).lowercased() + first.dropFirst()
        if let suggestion = commandSuggestion(for: first, arguments: arguments) {
            first += ". Did you mean '\(suggestion)'?"
        }
        lines[0] = first
        return lines
    }

    /// The command closest to an argument the message names, when no command was given: the
    /// first word that is not an option can only be the command.
    private static func commandSuggestion(for message: String, arguments: [String]) -> String? {
        let commands = WorldCup.configuration.subcommands.map { $0._commandName } + ["help"]
        guard !arguments.contains(where: commands.contains),
            let typed = arguments.first(where: { !$0.hasPrefix("-") && message.contains("'\($0)'") })
        else {
            return nil
        }
        return NameSuggestions.closest(to: typed, in: commands, limit: 1).first
    }

    /// `text` with every control character shown as U+FFFD.
    private static func visible(_ text: String) -> String {
        TerminalText.sanitized(text)
    }
}

/// The scoreboard was asked for where it cannot run: no terminal, or one it cannot drive.
struct NoUsableTerminal: Error, CustomStringConvertible {
    let description: String
}
