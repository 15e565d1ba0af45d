import TerminalUI
import TestSupport
import Testing

/// Random byte streams through the key decoder into the line editor: no crash, invariants hold.
@Suite struct InputFuzzTests {
    static let functionKeys: [Key] = [
        .left, .right, .home, .end, .backspace, .delete, .up, .down,
        .tab, .backTab, .enter, .escape, .pageUp, .pageDown, .resize,
    ]

    /// Keys as the terminal would deliver them for `bytes`: UTF-8 decoded (invalid sequences
    /// become U+FFFD, as a lenient decoder does), each character through ``KeyDecoder``, with
    /// some bytes standing for function keys instead.
    static func keys(from bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var pending: [UInt8] = []
        func flush() {
            for scalar in String(decoding: pending, as: UTF8.self).unicodeScalars {
                if let key = KeyDecoder.key(forCharacter: scalar.value) { keys.append(key) }
            }
            pending = []
        }
        for byte in bytes {
            if byte >= 0xF8 {
                flush()
                keys.append(functionKeys[Int(byte - 0xF8) % functionKeys.count])
            } else {
                pending.append(byte)
                if byte < 0x80 { flush() }
            }
        }
        flush()
        return keys
    }

    @Test func oneMillionRandomBytesThroughTheDecoderAndTheLineEditor() {
        let seed: UInt64 = 20261122
        print("InputFuzzTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        var totalBytes = 0, totalKeys = 0
        var editor = LineEditor()
        while totalBytes < 1_000_000 {
            let chunk = (0..<Int.random(in: 1...64, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            totalBytes += chunk.count
            for key in Self.keys(from: chunk) {
                totalKeys += 1
                editor.handle(key)
                editor._checkInvariants()
                let width = Int.random(in: 1...40, using: &random)
                let shown = editor.visible(width: width)
                if TextWidth.columns(of: shown.text) > width || shown.cursorColumn < 0 || shown.cursorColumn > width {
                    Issue.record("field overflow at width \(width): \(shown) for \(editor.text.debugDescription)")
                    return
                }
            }
            if editor.characters.count > 200 { editor = LineEditor() }
        }
        print("InputFuzzTests: \(totalBytes) bytes, \(totalKeys) keys")
        #expect(totalKeys > 500_000)
    }

    @Test func decoderNamesControlBytesAndPassesText() {
        #expect(KeyDecoder.key(forCharacter: 3) == .control("c"))
        #expect(KeyDecoder.key(forCharacter: 21) == .control("u"))
        #expect(KeyDecoder.key(forCharacter: 13) == .enter)
        #expect(KeyDecoder.key(forCharacter: 27) == .escape)
        #expect(KeyDecoder.key(forCharacter: 127) == .backspace)
        #expect(KeyDecoder.key(forCharacter: 0x9B) == nil, "C1 controls are dropped")
        #expect(KeyDecoder.key(forCharacter: 0xD800) == nil, "a lone surrogate is not a character")
        #expect(KeyDecoder.key(forCharacter: 0x65E5) == .character("日"))
    }

    @Test func editorEditsWholeCharacters() {
        var editor = LineEditor()
        for character in "Cafe\u{301} 日本" { editor.handle(.character(character)) }
        #expect(editor.text == "Café 日本")
        editor.handle(.backspace)
        editor.handle(.home)
        editor.handle(.delete)
        #expect(editor.text == "afé 日")
        editor.handle(.end)
        editor.handle(.left)
        editor.handle(.control("u"))
        #expect(editor.text == "日")
        editor.handle(.character("\u{1B}"))
        #expect(editor.text == "日", "control characters are never inserted")
    }
}
