import Foundation

/// What a program printed and how it ended.
public struct ProgramRun: Sendable {
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

    /// Runs `executable` with `arguments`, stdin from /dev/null, in `directory` (nil: this
    /// process's), and waits for it. `environment`: exactly these variables, or nil for this
    /// process's own.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, in directory: String? = nil
    ) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory.map { URL(fileURLWithPath: $0) }
        if let environment { process.environment = environment }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both pipes are read before waiting, so a large output cannot stall the child.
        let out = output.fileHandleForReading.readDataToEndOfFile(),
            err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        self.init(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self), stdoutBytes: out, stderrBytes: err)
    }
}
