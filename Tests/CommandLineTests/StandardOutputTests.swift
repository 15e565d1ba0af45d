import Foundation
import TestSupport
import Testing

/// Standard output that cannot be written (a full disk, here `/dev/full`) is an error a user
/// can cause: said on stderr with status 1, never a crash, and never a claim that work was not
/// done when it was.
@Suite struct StandardOutputTests {
    /// Runs `worldcup` with its standard output on `/dev/full`.
    static func runIntoAFullDisk(_ arguments: [String]) throws -> WorldCupProcess.Result {
        try WorldCupProcess.runProgram(
            "/bin/sh", ["-c", "exec \"$0\" \"$@\" >/dev/full", WorldCupProcess.binary] + arguments)
    }

    @Test(arguments: [["list"], ["list", "--json"], ["export"], ["export", "-"]])
    func dataThatCannotBeWrittenIsAnError(command: [String]) throws {
        let directory = TemporaryDirectory()
        let store = ["--db", directory.path + "/store.sqlite", "--seed", WorldCupProcess.seedPath]
        let result = try Self.runIntoAFullDisk(command + store)
        #expect(result.status == 1, "\(command): \(result.stderr)")
        #expect(result.stderr.hasPrefix("worldcup: cannot write to standard output: "), "\(result.stderr)")
        #expect(result.stderr.contains("No space left on device"), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
    }

    @Test func aMessageAfterTheWorkIsDoneSaysItIsDone() throws {
        let directory = TemporaryDirectory()
        let store = ["--db", directory.path + "/store.sqlite", "--seed", WorldCupProcess.seedPath]
        let result = try Self.runIntoAFullDisk(["add", "--name", "Wenderland", "--zone", "Internets"] + store)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("was done"), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
        #expect(try WorldCupProcess.run(["list"] + store).stdout.contains("Wenderland"))

        // The total a script reads from win: its loss is said, with the win kept.
        let win = try Self.runIntoAFullDisk(["win", "Ghana"] + store)
        #expect(win.status == 1, "\(win.stderr)")
        #expect(win.stderr.contains("was done"), "\(win.stderr)")
        #expect(try WorldCupProcess.run(["win", "Ghana"] + store).stdout == "2\n")
    }
}
