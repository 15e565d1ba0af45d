import TerminalUI
import Testing

/// The text field's editing keys, as a shell line has them.
@Suite struct LineEditorTests {
    static func typed(_ text: String) -> LineEditor {
        var editor = LineEditor()
        // One key per Unicode scalar, as the terminal delivers them.
        for scalar in text.unicodeScalars { editor.handle(.character(Character(scalar))) }
        editor._checkInvariants()
        return editor
    }

    @Test func aFamilyTypedScalarByScalarGoesWithOneBackspace() {
        var editor = Self.typed("ab👨‍👩‍👧")
        #expect(editor.characters.count == 3, "\(editor.characters)")
        editor.handle(.backspace)
        #expect(editor.text == "ab")
        editor = Self.typed("é")  // e + combining acute
        #expect(Self.typed("e\u{301}").characters.count == 1)
        editor.handle(.backspace)
        #expect(editor.text.isEmpty)
    }

    @Test func shellLineKeys() {
        var editor = Self.typed("Team Name  here")
        editor.handle(.control("w"))
        #expect(editor.text == "Team Name  ")
        editor.handle(.control("w"))
        #expect(editor.text == "Team ")
        editor.handle(.control("a"))
        editor.handle(.right)
        editor.handle(.control("k"))
        #expect(editor.text == "T")
        #expect(editor.cursor == 1)
        editor.handle(.control("e"))
        editor.handle(.character("o"))
        editor.handle(.home)
        editor.handle(.delete)
        #expect(editor.text == "o")
        editor._checkInvariants()
    }

    @Test func wrapKeepsEveryWordAndFitsTheWidth() {
        let text = "A team named \"Wenderland\" is already in the store (as \"WENDERLAND\"); pick another name."
        let lines = TextWidth.wrap(text, toColumns: 20)
        #expect(lines.allSatisfy { TextWidth.columns(of: $0) <= 20 })
        #expect(lines.joined(separator: " ") == text)
        #expect(
            TextWidth.wrap("日本代表日本代表日本代表", toColumns: 5)
                == ["日本", "代表", "日本", "代表", "日本", "代表"])
    }
}
