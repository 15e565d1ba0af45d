import Foundation

/// The controller's own work per one-row change in instructions, which do not drift with the
/// machine's load as times do: `valgrind --tool=callgrind` runs this binary's commit loop (see
/// `CommitLoop`) through the controller (`ours`) and as GRDB's floor, each for N wins and for
/// none; per win = (N wins − none) ÷ N, and the controller's own work is ours − floor.
struct InstructionCounts {
    var ours: Double
    var floor: Double
    var rounds: Int

    /// What the controller adds to GRDB's floor.
    var own: Double { ours - floor }

    /// Counts on a copy of the store at `storePath`; nil when valgrind is not installed.
    static func measure(storePath: String, folder: String, rounds: Int = 2000) throws -> InstructionCounts? {
        guard
            let valgrind = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { return nil }
        let binary = try withoutDebugInfo(CommandLine.arguments[0], in: folder)
        func perWin(_ way: String) throws -> Double {
            try (Double(collected(way, rounds)) - Double(collected(way, 0))) / Double(rounds)
        }
        func collected(_ way: String, _ rounds: Int) throws -> Int {
            let copy = folder + "/callgrind-\(way)-\(rounds).sqlite"
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.copyItem(atPath: storePath, toPath: copy)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: valgrind)
            process.arguments = [
                "--tool=callgrind", "--callgrind-out-file=/dev/null", binary, "--commit-loop", way,
                "--store", copy, "--rounds", String(rounds),
            ]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0, let match = text.firstMatch(of: /Collected : (\d+)/),
                let count = Int(match.1)
            else { throw BenchError("callgrind's commit loop (\(way), \(rounds) rounds) failed: \(text.suffix(500))") }
            return count
        }
        return InstructionCounts(ours: try perWin("ours"), floor: try perWin("floor"), rounds: rounds)
    }

    /// A copy of `binary` without its debug information, which valgrind 3.19 cannot read in a
    /// toolchain's DWARF 5 ("abbrev form code 0x23"); the counts need no symbols. The binary
    /// itself when `strip` is missing.
    private static func withoutDebugInfo(_ binary: String, in folder: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strip") else { return binary }
        let copy = folder + "/commit-loop-without-debug-info"
        let strip = Process()
        strip.executableURL = URL(fileURLWithPath: "/usr/bin/strip")
        strip.arguments = ["--strip-debug", "-o", copy, binary]
        try strip.run()
        strip.waitUntilExit()
        guard strip.terminationStatus == 0 else { throw BenchError("strip --strip-debug \(binary) failed") }
        return copy
    }
}
