import Foundation

/// Runs the built `worldcup` binary as a user or a script would, and collects what it printed.
public enum WorldCupProcess {
    /// What it printed and how it ended.
    public typealias Result = ProgramRun

    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$WORLDCUP_BIN`, else the debug binary that `swift build --build-tests` puts beside the tests.
    public static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["WORLDCUP_BIN"] { return path }
        return packageRoot.appendingPathComponent(".build/debug/worldcup").path
    }()

    public static let seedPath = packageRoot.appendingPathComponent("seed.json").path

    /// Runs `worldcup` with `arguments`, stdin from /dev/null, and a minimal environment
    /// plus `environment`, in `directory` (nil: this process's).
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], in directory: String? = nil
    ) throws -> Result {
        try runProgram(binary, arguments, environment: environment, in: directory)
    }

    /// Runs `program` as ``run(_:environment:in:)`` runs `worldcup`: a minimal environment (`PATH`,
    /// `LANG`, `HOME`) plus `environment`.
    public static func runProgram(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], in directory: String? = nil
    ) throws -> Result {
        var base = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        base["HOME"] = ProcessInfo.processInfo.environment["HOME"]
        return try ProgramRun(program, arguments, environment: base.merging(environment) { $1 }, in: directory)
    }
}
