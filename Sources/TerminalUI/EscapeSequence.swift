/// What follows an ESC from the terminal, read byte by byte: the rest of a key's escape
/// sequence, an Alt chord, or nothing (a lone Esc).
///
/// ncurses turns the sequences the terminal type (TERM) defines into keys itself; an ESC
/// reaches ``EscapeSequence`` only when what follows it is none of those: a key the terminal
/// sends differently from its terminfo entry (tmux's `\e[4~` for End under
/// `TERM=xterm-256color`), an Alt chord (`\ex`, `\e\r`), or nothing at all. The common
/// sequences of xterm, the Linux console, rxvt and tmux are mapped to their keys, as less and
/// htop do; every other sequence and every Alt chord is read whole and ignored, so neither
/// acts as Esc nor leaves its rest to be read as keys.
public struct EscapeSequence: Equatable, Sendable {
    /// The characters after the ESC so far.
    public private(set) var characters: [UInt32] = []

    /// Whether the sequence is over, and what it means.
    public enum Step: Equatable, Sendable {
        /// More characters belong to the sequence: read the next one.
        case needsMore
        /// The sequence is whole: its key, or nil when it is ignored.
        case done(Key?)
        /// The sequence ended, broken, before the last character, which is input of its own
        /// (a control character, the ESC of the next sequence): read it again.
        case endedBeforeLast
    }

    /// The longest sequence read: past it, a run of parameters is not a key anyone typed.
    public static let maximumLength = 32

    public init() {}

    /// Adds the next character that followed the ESC (read without waiting).
    public mutating func add(_ character: UInt32) -> Step {
        characters.append(character)
        guard characters.count < Self.maximumLength else { return .done(nil) }
        switch characters[0] {
        case 0x5B:  // CSI: ESC [ parameters intermediates final
            guard characters.count > 1 else { return .needsMore }
            let last = characters[characters.count - 1]
            // X10 mouse report: ESC [ M and three bytes.
            if characters.count >= 2 && characters[1] == 0x4D {
                return characters.count == 5 ? .done(nil) : .needsMore
            }
            // Parameters and intermediates go on; a final byte ends it; anything else (a
            // control character) ends a broken sequence, ignored, and is read again.
            if (0x20...0x3F).contains(last) { return .needsMore }
            guard (0x40...0x7E).contains(last) else { return last < 0x20 ? .endedBeforeLast : .done(nil) }
            return .done(Self.csiKey(parameters: characters[1..<(characters.count - 1)], final: last))
        case 0x4F:  // SS3: ESC O and one character
            guard characters.count > 1 else { return .needsMore }
            return .done(Self.ss3Key(characters[1]))
        case 0x1B:
            // Alt with a key that is itself a sequence (ESC ESC [ A): read that one whole.
            guard characters.count > 1 else { return .needsMore }
            var inner = EscapeSequence()
            var step = Step.needsMore
            for character in characters.dropFirst() { step = inner.add(character) }
            switch step {
            case .needsMore: return .needsMore
            case .done: return .done(nil)
            case .endedBeforeLast: return .endedBeforeLast
            }
        default:
            // An Alt chord (ESC x, ESC Enter): ignored.
            return .done(nil)
        }
    }

    /// What the characters read so far mean when nothing more follows: a lone Esc, or an
    /// incomplete sequence, ignored (ESC [ alone is Alt-[, ESC O Alt-O, ESC ESC Alt-Esc: two
    /// Esc presses are never this close together).
    public func finish() -> Key? {
        characters.isEmpty ? .escape : nil
    }

    /// The key of a whole ESC-started sequence (the characters after ESC), as ``add(_:)`` reads
    /// it; nil when it is ignored or not whole.
    public static func key(after characters: some Sequence<UInt32>) -> Key? {
        var sequence = EscapeSequence()
        for character in characters {
            switch sequence.add(character) {
            case .needsMore: continue
            case let .done(key): return key
            case .endedBeforeLast: return nil
            }
        }
        return sequence.finish()
    }

    /// ESC [ … final. Modifiers (`1;5A`, Ctrl-↑) are ignored: the key is the same key.
    private static func csiKey(parameters: ArraySlice<UInt32>, final: UInt32) -> Key? {
        // Private parameters (`<` of an SGR mouse report, `?` of a reply) are not keys.
        if let first = parameters.first, (0x3C...0x3F).contains(first) { return nil }
        let numbers = String(decoding: parameters.map { UInt8(truncatingIfNeeded: $0) }, as: UTF8.self)
            .split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        switch final {
        case 0x5A: return .backTab
        case 0x7E:  // ESC [ n ~ (vt220, rxvt, tmux, the Linux console)
            switch numbers.first ?? nil {
            case 1, 7: return .home
            case 4, 8: return .end
            case 3: return .delete
            case 5: return .pageUp
            case 6: return .pageDown
            default: return nil
            }
        default:
            return cursorKey(final)
        }
    }

    /// ESC O and one character (xterm's application cursor and keypad keys).
    private static func ss3Key(_ character: UInt32) -> Key? {
        character == 0x4D ? .enter : cursorKey(character)  // 0x4D: the keypad's Enter
    }

    /// The cursor keys' last character, the same after ESC [ and ESC O.
    private static func cursorKey(_ final: UInt32) -> Key? {
        switch final {
        case 0x41: return .up
        case 0x42: return .down
        case 0x43: return .right
        case 0x44: return .left
        case 0x48: return .home
        case 0x46: return .end
        default: return nil
        }
    }
}
