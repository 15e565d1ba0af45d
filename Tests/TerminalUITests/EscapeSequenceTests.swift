import TerminalUI
import Testing

/// What follows an ESC that curses did not match (issue 44, bug 1): the keys other terminals
/// send are mapped, Alt chords and unknown sequences are read whole and ignored, and only a
/// lone ESC is Esc.
@Suite struct EscapeSequenceTests {
    static func key(_ rest: String) -> Key? {
        EscapeSequence.key(after: rest.unicodeScalars.map(\.value))
    }

    @Test func aLoneEscIsEsc() {
        #expect(Self.key("") == .escape)
    }

    @Test func homeEndAndTheirKinAsOtherTerminalsSendThem() {
        #expect(Self.key("[1~") == .home, "tmux, vt220")
        #expect(Self.key("[4~") == .end, "tmux, vt220")
        #expect(Self.key("[7~") == .home, "rxvt")
        #expect(Self.key("[8~") == .end, "rxvt")
        #expect(Self.key("[H") == .home)
        #expect(Self.key("[F") == .end)
        #expect(Self.key("OH") == .home)
        #expect(Self.key("OF") == .end)
        #expect(Self.key("[5~") == .pageUp)
        #expect(Self.key("[6~") == .pageDown)
        #expect(Self.key("[3~") == .delete)
        #expect(Self.key("[A") == .up)
        #expect(Self.key("OB") == .down)
        #expect(Self.key("[1;5C") == .right, "Ctrl-→ is →")
        #expect(Self.key("[Z") == .backTab)
    }

    @Test func altChordsAndUnknownSequencesAreIgnored() {
        for rest in [
            "x", "j", "q", "[", "\r", "O", "\u{1B}", "\u{1B}[A", "[2~", "[15~", "[1;2P", "OP", "[<0;3;4M", "[?1;2c",
        ] {
            #expect(Self.key(rest) == nil, "ESC \(rest.debugDescription)")
        }
    }

    @Test func aSequenceIsReadWholeAndNoFurther() {
        var sequence = EscapeSequence()
        #expect(sequence.add(0x5B) == .needsMore)
        #expect(sequence.add(0x34) == .needsMore)
        #expect(sequence.add(0x7E) == .done(.end), "ESC [ 4 ~ ends at ~")
        var alt = EscapeSequence()
        #expect(alt.add(0x78) == .done(nil), "ESC x ends at x: what follows is the next key")
        var mouse = EscapeSequence()
        for byte: UInt32 in [0x5B, 0x4D, 0x20, 0x21] { #expect(mouse.add(byte) == .needsMore) }
        #expect(mouse.add(0x21) == .done(nil), "an X10 mouse report takes three bytes after ESC [ M")
        var broken = EscapeSequence()
        _ = broken.add(0x5B)
        #expect(broken.add(0x0D) == .endedBeforeLast, "Enter after ESC [ is a key of its own")
        var endless = EscapeSequence()
        var step = endless.add(0x5B)
        for _ in 0..<100 where step == .needsMore { step = endless.add(0x31) }
        #expect(step == .done(nil), "a run of parameters ends")
    }

    @Test func anIncompleteSequenceIsIgnored() {
        var sequence = EscapeSequence()
        _ = sequence.add(0x5B)
        _ = sequence.add(0x31)
        #expect(sequence.finish() == nil)
    }
}
