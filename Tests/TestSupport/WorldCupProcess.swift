import Foundation

/// Runs the built `worldcup` binary as a user or a script would, and collects what it printed.
public enum WorldCupProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// The bytes as printed, for checks that a decoded string would hide (invalid UTF-8).
        public var stdoutBytes = Data()
        public var stderrBytes = Data()

        public init(
            status: Int32, stdout: String, stderr: String, stdoutBytes: Data = Data(), stderrBytes: Data = Data()
        ) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
            self.stdoutBytes = stdoutBytes
            self.stderrBytes = stderrBytes
        }
    }

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

    public static func runProgram(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], in directory: String? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.currentDirectoryURL = directory.map { URL(fileURLWithPath: $0) }
        var base = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        base["HOME"] = ProcessInfo.processInfo.environment["HOME"]
        process.environment = base.merging(environment) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes before waiting so a large output cannot fill a pipe and stall the child.
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            stdoutBytes: outData, stderrBytes: errData)
    }
}
