import Foundation
import TestSupport
import Testing

/// The scoreboard on a store its user may read but not write (run as the user "nobody": the
/// tests run as root, who may write anywhere): it opens read-only and says so on the status
/// line, as a PostgreSQL viewer's does, and a win is refused with the reason, without a crash.
@Suite(.serialized) struct ReadOnlyStoreEndToEndTests {
    @Test func theScoreboardOpensAReadOnlyStoreAndSaysWhyAWinIsRefused() throws {
        let directory = TemporaryDirectory()
        let made = try ProgramRun(
            WorldCupProcess.binary,
            ["win", "Algeria", "--count", "2", "--db", directory.store, "--seed", WorldCupProcess.seedPath])
        try #require(made.status == 0, "\(made.stderr)")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory.store)
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.store))
        let cache = TemporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: cache.path)
        let nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups"
        let terminal = try Tmux(
            width: 80, height: 24,
            command: "XDG_CACHE_HOME='\(cache.path)' \(nobody) '\(WorldCupProcess.binary)' --db '\(directory.store)'")
        #expect(terminal.waitFor("World Cup — 32 teams in 5 zones"), "\(terminal.lines)")
        #expect(terminal.waitFor("Read-only store"), "\(terminal.statusLine)")
        #expect(terminal.wins(of: "Algeria") == 2)
        try terminal.press("Enter")  // the cursor starts on Algeria
        #expect(
            terminal.waitFor("Read-only store: nothing changed (this user may not write it)."),
            "\(terminal.statusLine)")
        try terminal.press("u")
        #expect(terminal.waitFor("Nothing to undo"), "\(terminal.statusLine)")
        #expect(terminal.wins(of: "Algeria") == 2)
        #expect(!terminal.commandExited)
        try terminal.press("q")
        #expect(terminal.waitUntil(timeout: 5) { terminal.commandExited })
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.store)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["store.sqlite"])
    }
}
