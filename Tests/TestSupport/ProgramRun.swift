import Foundation

/// What a program printed and how it ended.
public struct ProgramRun {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// Runs `executable` with `arguments`, stdin from /dev/null, and waits for it.
    public init(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both pipes are read before waiting, so a large output cannot stall the child.
        let out = output.fileHandleForReading.readDataToEndOfFile(),
            err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        status = process.terminationStatus
        stdout = String(decoding: out, as: UTF8.self)
        stderr = String(decoding: err, as: UTF8.self)
    }
}
