import Foundation
import GRDB
import TestSupport
import Testing

/// Issue 44, bug 1: keys the terminal type does not define, and Alt chords, in a real terminal.
/// tmux sends Home and End as `\e[1~` and `\e[4~` whatever TERM says, which xterm-256color's
/// terminfo names `\eOH` and `\eOF`; Alt chords arrive as ESC and the key. Only `q`, Ctrl-C
/// and a deliberate Esc quit; the rest moves as the key means, or does nothing.
@Suite(.serialized) struct PartyKeysEndToEndTests {
    /// The exit status of the session's program, once it exited.
    /// The scoreboard under a shell that writes its exit status to a file once it ends (tmux's
    /// own `pane_dead_status` is sometimes left empty).
    static func scoreboard(_ directory: TemporaryDirectory, term: String) -> String {
        "TERM=\(term) \(directory.scoreboard); echo $? > \(directory.path)/exit-status"
    }

    /// The scoreboard's exit status, or "" while it runs.
    static func exitStatus(_ directory: TemporaryDirectory) -> String {
        ((try? String(contentsOfFile: directory.path + "/exit-status", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: ["xterm-256color", "screen"])
    func keysTheTerminalTypeDoesNotDefineNeverQuit(term: String) throws {
        let directory = TemporaryDirectory()
        let terminal = try Tmux(command: Self.scoreboard(directory, term: term))
        #expect(terminal.waitFor("World Cup — 32 teams"))
        #expect(terminal.wait { _ in terminal.cursorLine?.contains(" Algeria ") == true })

        try terminal.press("End")
        #expect(
            terminal.wait(timeout: 5) { _ in terminal.cursorLine?.contains(" Uruguay ") == true },
            "End goes to the last team: \(terminal.lines)")
        #expect(Self.exitStatus(directory).isEmpty, "End does not quit (status \(Self.exitStatus(directory)))")
        try terminal.press("Home")
        #expect(
            terminal.wait(timeout: 5) { _ in terminal.cursorLine?.contains(" Algeria ") == true },
            "Home goes to the first team: \(terminal.lines)")
        #expect(Self.exitStatus(directory).isEmpty, "Home does not quit (status \(Self.exitStatus(directory)))")

        // Alt chords do nothing: not a quit, not a win (Alt-Enter), not a zone (Alt-[).
        for chord in ["M-x", "M-j", "M-[", "M-Enter", "M-Escape", "M-Up"] {
            try terminal.press(chord)
            // A person's next key comes later than ESCDELAY (25 ms), which tells `M-[` and `j`
            // from the sequence `\e[j`; tmux would send it at once.
            usleep(150_000)
            try terminal.press("j")
            #expect(
                terminal.wait(timeout: 5) { _ in terminal.cursorLine?.contains(" Cameroon ") == true },
                "after \(chord) the next key still works: \(terminal.lines)")
            try #require(
                Self.exitStatus(directory).isEmpty, "\(chord) does not quit (status \(Self.exitStatus(directory)))")
            try terminal.press("k")
            #expect(terminal.wait(timeout: 5) { _ in terminal.cursorLine?.contains(" Algeria ") == true })
        }
        let wins = try DatabaseQueue(path: directory.store).read { db in
            try Int.fetchOne(db, sql: "SELECT sum(wins) FROM team")
        }
        #expect(wins == 0, "no chord added a win")

        // A lone Esc still quits, with status 0.
        try terminal.press("Escape")
        #expect(
            terminal.waitUntil(timeout: 5) { Self.exitStatus(directory) == "0" },
            "a deliberate Esc quits, with status 0: \(Self.exitStatus(directory))")
    }

    /// In the Add Team dialog, Home and End edit the field (the dialog stays open, the typed
    /// name kept) and an Alt chord does nothing.
    @Test func theDialogKeepsItsNameThroughHomeEndAndAltChords() throws {
        let directory = TemporaryDirectory()
        let terminal = try Tmux(command: Self.scoreboard(directory, term: "xterm-256color"))
        #expect(terminal.waitFor("World Cup — 32 teams"))
        try terminal.press("S", "+")
        #expect(terminal.waitFor("Secret Team"))
        try terminal.type("derland")
        try terminal.press("Home")
        try terminal.type("Wen")
        try terminal.press("M-x")
        try terminal.press("End")
        try terminal.type("er")
        #expect(
            terminal.waitFor("Team Name:       Wenderlander", timeout: 5), "the field edited: \(terminal.lines)")
        try terminal.press("Tab")
        try terminal.type("Europe")
        try terminal.press("Enter")
        #expect(terminal.waitFor("Added Wenderlander."), "\(terminal.lines)")
        let zone = try DatabaseQueue(path: directory.store).read { db in
            try String.fetchOne(db, sql: "SELECT qualifyingZone FROM team WHERE teamName = 'Wenderlander'")
        }
        #expect(zone == "Europe")
        #expect(Self.exitStatus(directory).isEmpty)
        try terminal.press("q")
        #expect(terminal.waitUntil(timeout: 5) { Self.exitStatus(directory) == "0" }, "\(Self.exitStatus(directory))")
    }
}
