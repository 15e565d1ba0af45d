import Foundation
import Testing

@testable import TerminalUI

#if canImport(Glibc)
    import Glibc
#endif

/// Telling a dark background from a light one: the terminal's reply to OSC 11 (read from a real
/// pseudo-terminal), and `COLORFGBG`.
@Suite struct TerminalBackgroundTests {
    @Test func osc11ColoursAreReadInEveryWidthOfDigits() {
        #expect(TerminalBackground(osc11Color: "rgb:ffff/ffff/ffff") == .light)
        #expect(TerminalBackground(osc11Color: "rgb:0000/0000/0000") == .dark)
        #expect(TerminalBackground(osc11Color: "rgb:fd/f6/e3") == .light, "Solarized light, two digits a part")
        #expect(TerminalBackground(osc11Color: "rgb:00/2b/36") == .dark, "Solarized dark")
        #expect(TerminalBackground(osc11Color: "rgb:1e1e/1e1e/2e2e") == .dark)
        #expect(TerminalBackground(osc11Color: "rgb:f/f/f") == .light)
        #expect(TerminalBackground(osc11Color: "rgb:0000/ffff/0000") == .light, "green weighs most")
        #expect(TerminalBackground(osc11Color: "rgb:0000/0000/ffff") == .dark, "blue weighs least")
        let bads = ["", "rgb:", "rgb:ffff/ffff", "rgb:ffff/ffff/ffff/ffff", "rgb:gggg/0/0", "rgb:12345/0/0", "#ffffff"]
        for bad in bads {
            #expect(TerminalBackground(osc11Color: bad) == nil, "\(bad)")
        }
    }

    @Test func colorFGBGNamesTheBackgroundByItsLastField() {
        #expect(TerminalBackground(colorFGBG: "15;0") == .dark)
        #expect(TerminalBackground(colorFGBG: "0;15") == .light)
        #expect(TerminalBackground(colorFGBG: "0;7") == .light)
        #expect(TerminalBackground(colorFGBG: "7;8") == .dark)
        #expect(TerminalBackground(colorFGBG: "0;default;15") == .light)
        #expect(TerminalBackground(colorFGBG: "default;default") == nil)
        #expect(TerminalBackground(colorFGBG: "") == nil)
    }

    @Test func repliesAreFoundAmongOtherBytes() {
        func reply(_ text: String) -> BackgroundReply { BackgroundReply(Array(text.utf8)) }
        let st = reply("\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\\u{1B}[?62;22c")
        #expect(st.background == .light && st.hasColorReply && st.isComplete && st.otherBytes.isEmpty)
        let bel = reply("\u{1B}]11;rgb:0000/0000/0000\u{07}\u{1B}[?1;2c")
        #expect(bel.background == .dark && bel.isComplete)
        let keysFirst = reply("jk\u{1B}]11;rgb:ffff/ffff/ffff\u{07}q\u{1B}[?1;2c")
        #expect(
            keysFirst.background == .light && keysFirst.otherBytes == Array("jkq".utf8),
            "keys typed meanwhile are kept")
        let noColour = reply("\u{1B}[?1;2c")
        #expect(
            noColour.background == nil && !noColour.hasColorReply && noColour.isComplete,
            "a terminal without OSC 11")
        let unnamed = reply("\u{1B}]11;cmyk:0/0/0/0\u{07}")
        #expect(unnamed.hasColorReply && unnamed.background == nil && !unnamed.isComplete)
        let arrowKey = reply("\u{1B}[A")
        #expect(
            arrowKey.otherBytes == Array("\u{1B}[A".utf8) && !arrowKey.isComplete,
            "a key's escape sequence is not a reply")
        for cut in ["\u{1B}", "\u{1B}]1", "\u{1B}]11;rgb:ff", "\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}", "\u{1B}[?1;"] {
            let partial = reply(cut)
            #expect(
                partial.otherBytes.isEmpty && !partial.isComplete && partial.background == nil,
                "still coming: \(cut.debugDescription)")
        }
    }

    /// A pseudo-terminal whose other end plays the terminal: it reads the query and answers
    /// after a key the user typed.
    @Test func askingARealPseudoTerminal() throws {
        var controller: Int32 = 0, terminal: Int32 = 0
        try #require(openpty(&controller, &terminal, nil, nil, nil) == 0)
        defer { close(controller); close(terminal) }
        let other = controller
        let answer = Thread {
            var buffer = [UInt8](repeating: 0, count: 64)
            var query: [UInt8] = []
            while query.count < BackgroundReply.query.count {
                let count = read(other, &buffer, buffer.count)
                if count <= 0 { return }
                query += buffer.prefix(count)
            }
            guard query == BackgroundReply.query else { return }
            let reply = Array("x\u{1B}]11;rgb:fafa/fafa/fafa\u{1B}\\\u{1B}[?64;1c".utf8)
            _ = reply.withUnsafeBytes { write(other, $0.baseAddress, $0.count) }
        }
        answer.start()
        var before = termios()
        tcgetattr(terminal, &before)
        let reply = BackgroundReply.ask(input: terminal, output: terminal, timeoutMilliseconds: 5_000)
        #expect(reply.background == .light && reply.isComplete)
        #expect(reply.otherBytes == Array("x".utf8), "the key typed before the reply")
        var after = termios()
        tcgetattr(terminal, &after)
        #expect(before.c_lflag == after.c_lflag, "the tty's modes are put back")
    }

    /// A terminal that answers nothing: the wait ends at the time limit, with nothing found.
    @Test func aSilentTerminalIsWaitedForOnlyUntilTheLimit() throws {
        var controller: Int32 = 0, terminal: Int32 = 0
        try #require(openpty(&controller, &terminal, nil, nil, nil) == 0)
        defer { close(controller); close(terminal) }
        let reply = BackgroundReply.ask(input: terminal, output: terminal, timeoutMilliseconds: 100)
        #expect(reply.background == nil && !reply.isComplete && reply.otherBytes.isEmpty)
    }
}
