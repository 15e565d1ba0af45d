import TerminalUI
import Testing

@Suite struct TextWidthTests {
    init() { TextWidth.prepareLocale() }

    @Test(arguments: [
        ("Brazil", 6),
        ("Côte d'Ivoire", 13),  // precomposed ô
        ("Co\u{302}te", 4),  // o + combining circumflex is one column
        ("日本", 4),  // CJK ideographs are two columns each
        ("대한민국", 8),
        ("🇧🇷", 2),  // a flag: two regional indicators, one wide glyph
        ("⚽", 2),
        ("", 0),
    ])
    func measuresColumns(text: String, expected: Int) {
        #expect(TextWidth.columns(of: text) == expected)
    }

    @Test func truncatesWithEllipsisWithinWidth() {
        #expect(TextWidth.truncate("Switzerland", toColumns: 6) == "Switz…")
        #expect(TextWidth.truncate("Switzerland", toColumns: 11) == "Switzerland")
        #expect(TextWidth.truncate("日本代表チーム", toColumns: 6) == "日本…")
        #expect(TextWidth.truncate("anything", toColumns: 0) == "")
    }

    @Test func fitPadsWideTextToExactColumns() {
        for text in ["日本代表チーム", "Brazil", "🇧🇷 Brasil", "Co\u{302}te d'Ivoire"] {
            for width in 1...14 {
                let fitted = TextWidth.fit(text, toColumns: width)
                #expect(TextWidth.columns(of: fitted) == width, "\(text) at \(width)")
            }
        }
    }

    @Test func sanitizerReplacesEveryControlCharacter() {
        let hostile = "Evil\u{1B}[2J\u{07}Team\u{9B}31m\u{7F}"
        let clean = TerminalText.sanitized(hostile)
        #expect(!clean.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(clean == "Evil\u{FFFD}[2J\u{FFFD}Team\u{FFFD}31m\u{FFFD}")
        #expect(TerminalText.sanitized("Plain ñame") == "Plain ñame")
    }

    @Test func linksTheWideCharacterNcurses() {
        #expect(TerminalLibrary.version.hasPrefix("ncurses 6"))
    }
}
