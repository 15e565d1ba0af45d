import CNcursesw

/// Display-width measurement and truncation for terminal text.
///
/// Terminals lay text out in columns, not characters: a CJK ideograph or an emoji takes two
/// columns, a combining accent none. Every column-aligned output (the `list` command, the
/// scoreboard's rows) measures with these functions so that wide characters never push a
/// column out of line.
public enum TextWidth {
    /// Makes `wcwidth` answer for non-ASCII characters.
    ///
    /// `wcwidth` follows the C library's character-type locale; in the default "C" locale it
    /// returns -1 for everything beyond ASCII. This keeps a UTF-8 locale the environment already
    /// chose and otherwise falls back to `C.UTF-8`. Measuring calls it once by itself.
    public static func prepareLocale() {
        if let chosen = setlocale(LC_CTYPE, ""), String(cString: chosen).uppercased().contains("UTF-8") {
            return
        }
        if setlocale(LC_CTYPE, "C.UTF-8") == nil {
            _ = setlocale(LC_CTYPE, "en_US.UTF-8")
        }
    }

    /// The number of terminal columns `text` occupies once sanitised for display.
    public static func columns(of text: String) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    /// The number of terminal columns one grapheme cluster occupies.
    public static func columns(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.count > 1 && scalars.contains(where: Self.isEmojiComponent) {
            // Flags (two regional indicators), ZWJ sequences and emoji with a
            // presentation selector are drawn as one wide glyph.
            return 2
        }
        // A cluster's width is its base character's; combining marks add nothing.
        return scalarColumns(first)
    }

    /// `text` cut to at most `width` columns, ending in "…" when anything was cut.
    public static func truncate(_ text: String, toColumns width: Int) -> String {
        guard width > 0 else { return "" }
        if columns(of: text) <= width { return text }
        var result = ""
        var used = 0
        for character in text {
            let w = columns(of: character)
            if used + w > width - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…"
    }

    /// `text` truncated and then padded with spaces to exactly `width` columns.
    public static func fit(_ text: String, toColumns width: Int) -> String {
        let cut = truncate(text, toColumns: width)
        return cut + String(repeating: " ", count: max(0, width - columns(of: cut)))
    }

    /// `text` broken into lines of at most `width` columns, at spaces where it can be (a word
    /// longer than a line is cut), so a long message is shown whole instead of cut off.
    public static func wrap(_ text: String, toColumns width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            var word = word
            let candidate = line.isEmpty ? word : line + " " + word
            if columns(of: candidate) <= width {
                line = candidate
                continue
            }
            if !line.isEmpty { lines.append(line) }
            line = ""
            while columns(of: word) > width {
                var head = "", used = 0
                for character in word {
                    let w = columns(of: character)
                    if used + w > width { break }
                    head.append(character)
                    used += w
                }
                guard !head.isEmpty else { return lines }  // a character wider than the line
                lines.append(head)
                word.removeFirst(head.count)
            }
            line = word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    private static let localeIsPrepared: Void = prepareLocale()

    private static func scalarColumns(_ scalar: Unicode.Scalar) -> Int {
        if scalar.value < 0x7F { return 1 }
        _ = localeIsPrepared
        if scalar.properties.isEmojiPresentation { return 2 }
        let width = Int(worldcup_wcwidth(Int32(bitPattern: scalar.value)))
        // Unassigned or non-printable code points: the sanitiser shows them as one replacement glyph.
        return width < 0 ? 1 : width
    }

    private static func isEmojiComponent(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isEmojiPresentation
            || (0x1F1E6...0x1F1FF).contains(scalar.value)  // regional indicators
            || scalar.value == 0xFE0F  // emoji presentation selector
            || scalar.value == 0x200D  // zero-width joiner
    }
}
