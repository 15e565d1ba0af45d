import Foundation
import GRDB
import TerminalUI
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The scoreboard's question about the terminal's background (issue 22, the look), asked of a
/// pseudo-terminal this test plays: a reply that comes after the start gave up waiting is not
/// taken for keys (its ESC would quit).
@Suite struct TerminalQueryEndToEndTests {
    @Test func aLateReplyIsNotTakenForKeys() throws {
        let directory = TemporaryDirectory()
        var controller: Int32 = 0, terminal: Int32 = 0
        var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
        try #require(openpty(&controller, &terminal, nil, nil, &size) == 0)
        defer { close(controller) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in Int32(0)...2 { posix_spawn_file_actions_adddup2(&actions, terminal, descriptor) }
        posix_spawn_file_actions_addclose(&actions, controller)
        posix_spawn_file_actions_addclose(&actions, terminal)
        let words = [WorldCupProcess.binary, "--db", directory.store, "--seed", WorldCupProcess.seedPath]
        let environment = [
            "TERM=xterm-256color", "LANG=C.UTF-8", "HOME=\(directory.path)",
            "XDG_CACHE_HOME=\(directory.path)/cache", "PATH=/usr/bin:/bin",
        ]
        let argv = words.map { strdup($0) } + [nil], envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        try #require(posix_spawn(&pid, words[0], &actions, nil, argv, envp) == 0)
        close(terminal)

        // Everything the program writes, read as it comes (a full pty would stop it).
        let output = Shared<[UInt8]>([])
        let reader = controller
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(reader, &buffer, buffer.count)
                if count <= 0 { return }
                output.withLock { $0 += buffer.prefix(count) }
            }
        }.start()
        func waitForOutput(_ text: String) -> Bool {
            let wanted = Data(text.utf8)
            for _ in 0..<1000 {
                if output.withLock({ Data($0).range(of: wanted) != nil }) { return true }
                usleep(20_000)
            }
            return false
        }
        func send(_ text: String) {
            _ = Array(text.utf8).withUnsafeBytes { write(controller, $0.baseAddress, $0.count) }
        }
        var status: Int32 = 0, exited = false
        func hasExited() -> Bool {
            if !exited { exited = waitpid(pid, &status, WNOHANG) == pid }
            return exited
        }
        func wins() -> Int? {
            try? DatabaseQueue(path: directory.store).read { db in
                try Int.fetchOne(db, sql: "SELECT sum(wins) FROM team")
            }
        }

        #expect(waitForOutput(String(decoding: BackgroundReply.query, as: UTF8.self)), "the program asks")
        // Not answered: the program gives up waiting and draws the scoreboard.
        #expect(waitForOutput("World Cup — 32 teams"))
        send("\u{1B}]11;rgb:0000/0000/0000\u{1B}\\\u{1B}[?1;2c")
        usleep(500_000)
        #expect(!hasExited(), "the late reply did not quit the scoreboard")
        send("\r")
        var counted = false
        for _ in 0..<500 where !counted {
            counted = wins() == 1
            usleep(20_000)
        }
        #expect(counted, "keys after it work: Enter adds a win")
        send("q")
        for _ in 0..<500 where !hasExited() { usleep(20_000) }
        #expect(status == 0, "q quits, with status 0 (wait status \(status))")
        if !hasExited() { kill(pid, SIGKILL) }
    }
}
