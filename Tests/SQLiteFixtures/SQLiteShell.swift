import Foundation

/// The `sqlite3` command-line shell, running as a separate process on a store: the writer a
/// controller cannot observe directly (like a script or a cron job). It commits what it is given
/// before `execute` returns.
public final class SQLiteShell {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var pending = Data()
    private static let marker = "fetchedresults-shell-done"

    public init(path: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Line-buffered: the shell's output goes to a pipe, which stdio would otherwise buffer.
        process.arguments = ["stdbuf", "-oL", "sqlite3", "-batch", path]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try execute(".timeout 10000")
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Runs SQL text (statements or dot-commands) and waits until the shell has finished it;
    /// anything the shell prints (an error, say) is thrown.
    public func execute(_ sql: String) throws {
        // The lone semicolon ends a last statement that lacks one (an empty statement is fine).
        try input.fileHandleForWriting.write(contentsOf: Data((sql + "\n;\nSELECT '\(Self.marker)';\n").utf8))
        var printed = ""
        while true {
            if let end = pending.firstRange(of: Data("\n".utf8)) {
                let line = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
                pending.removeSubrange(..<end.upperBound)
                if line == Self.marker { break }
                printed += line + "\n"
                continue
            }
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else {
                throw Failure(
                    description: "the sqlite3 shell stopped (\(printed)); install it with: sudo apt-get install sqlite3"
                )
            }
            pending.append(data)
        }
        if !printed.isEmpty { throw Failure(description: "sqlite3 printed: \(printed) for: \(sql)") }
    }
}
