/// A one-line text field's contents and cursor, edited key by key with the keys of a shell
/// line: ← → Home End (Ctrl-A, Ctrl-E), Backspace, Delete, Ctrl-U (to the start), Ctrl-K (to the
/// end), Ctrl-W (the word before the cursor).
///
/// Invariant (checked by `_checkInvariants()`): `0 <= cursor <= characters.count`, and no
/// character is a control character. Works in grapheme clusters, so an accented letter or an
/// emoji is deleted whole, and measures in terminal columns for display.
public struct LineEditor: Equatable, Sendable {
    public private(set) var characters: [Character] = []
    /// Position of the cursor, in characters from the start.
    public private(set) var cursor = 0

    public init(_ text: String = "") {
        characters = Array(text).filter { !Self.isControl($0) }
        cursor = characters.count
    }

    public var text: String { String(characters) }

    /// Applies an editing key; returns false for keys that are not editing keys.
    @discardableResult
    public mutating func handle(_ key: Key) -> Bool {
        switch key {
        case let .character(character):
            guard !Self.isControl(character) else { return true }
            // A terminal sends a cluster such as 👨‍👩‍👧 one scalar at a time: cluster again, so
            // that the family is one character and one Backspace deletes it.
            let before = String(characters[..<cursor]) + String(character)
            let reclustered = Array(before + String(characters[cursor...]))
            cursor = min(Array(before).count, reclustered.count)
            characters = reclustered
        case .backspace:
            if cursor > 0 {
                characters.remove(at: cursor - 1)
                cursor -= 1
            }
        case .delete:
            if cursor < characters.count { characters.remove(at: cursor) }
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(characters.count, cursor + 1)
        case .home, .control("a"): cursor = 0
        case .end, .control("e"): cursor = characters.count
        case .control("u"):
            characters.removeFirst(cursor)
            cursor = 0
        case .control("k"):
            characters.removeLast(characters.count - cursor)
        case .control("w"):
            // The word before the cursor and the spaces after it, as a shell line does.
            var start = cursor
            while start > 0 && characters[start - 1] == " " { start -= 1 }
            while start > 0 && characters[start - 1] != " " { start -= 1 }
            characters.removeSubrange(start..<cursor)
            cursor = start
        default:
            return false
        }
        return true
    }

    /// What to show in a field `width` columns wide: the text scrolled so the cursor is
    /// visible, and the cursor's column inside the field. Linear in the text's length.
    public func visible(width: Int) -> (text: String, cursorColumn: Int) {
        guard width > 0 else { return ("", 0) }
        // Walk back from the cursor while the characters fit, leaving one column for the cursor.
        var start = cursor
        var cursorColumn = 0
        while start > 0 {
            let w = TextWidth.columns(of: characters[start - 1])
            if cursorColumn + w > width - 1 { break }
            cursorColumn += w
            start -= 1
        }
        var shown = ""
        var used = 0
        for character in characters[start...] {
            let w = TextWidth.columns(of: character)
            if used + w > width { break }
            shown.append(character)
            used += w
        }
        return (shown, cursorColumn)
    }

    static func isControl(_ character: Character) -> Bool {
        character.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    public func _checkInvariants() {
        precondition(cursor >= 0 && cursor <= characters.count, "cursor within the text")
        precondition(!characters.contains(where: Self.isControl), "no control characters")
    }
}
