import Foundation
import TestSupport

/// The built `worldcup follow`, run as a user runs it, its standard output a pipe the test reads
/// line by line.
final class FollowProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let process = Process()
    private let output = Pipe()
    private let errors: String
    private var buffer = Data()

    /// Starts `worldcup follow` with `arguments` (the store's among them), and waits until it
    /// has read the standings (its note on stderr), so that every change after this is told.
    init(_ arguments: [String], folder: TemporaryDirectory) throws {
        errors = folder.path + "/follow-\(UUID().uuidString.prefix(8)).err"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.executableURL = URL(fileURLWithPath: WorldCupProcess.binary)
        process.arguments = ["follow"] + arguments + ["--seed", WorldCupProcess.seedPath]
        process.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": folder.path]
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while !stderr.contains("Following the standings") {
            guard process.isRunning, Date() < deadline else {
                throw Failure(description: "worldcup follow did not start: \(stderr)")
            }
            usleep(10_000)
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// What it wrote on stderr so far.
    var stderr: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }

    /// The next line it prints, without its newline, or nil when none comes within `timeout`
    /// seconds.
    func nextLine(timeout: TimeInterval = 20) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        let descriptor = output.fileHandleForReading.fileDescriptor
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<end], as: UTF8.self)
                buffer = Data(buffer[(end + 1)...])
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(left * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Every line it printed within `timeout` seconds from now.
    func linesUntilQuiet(timeout: TimeInterval = 1) -> [String] {
        var lines: [String] = []
        while let line = nextLine(timeout: timeout) { lines.append(line) }
        return lines
    }

    /// Closes the test's end of its standard output, as `head` does once it has its lines.
    func closeReader() {
        try? output.fileHandleForReading.close()
    }

    /// Its exit status once it ends, or nil when it still runs after `timeout` seconds.
    func exitStatus(within timeout: TimeInterval = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            guard Date() < deadline else { return nil }
            usleep(10_000)
        }
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }
}
