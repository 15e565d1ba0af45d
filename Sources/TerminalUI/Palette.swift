/// The colours a ``CursesTerminal`` draws with, chosen for the terminal's background and for
/// how many colours it has.
///
/// - The accent (section headers, rows another writer changed) is cyan on dark backgrounds, a
///   dark blue on light ones, and a mid blue (or, with eight colours, magenta) that reads on
///   both when the background is unknown.
/// - Subdued text (column headings, key hints, the list behind a box) is a grey with 256
///   colours, chosen per background, since faint text (SGR 2) is drawn like body text by some
///   terminals (xterm); with fewer colours it is faint text.
/// - The highlight bar is black on cyan, as htop's, on terminals that erase in the current
///   background colour (terminfo's `bce`): it reads on both backgrounds, and curses erases the
///   blanks of a bar as wide as the window with one short sequence. Other terminals can erase
///   only to their default colours, so every cell of a bar in colour would be sent; there the
///   bar is reverse video, which is as readable and a few bytes shorter.
/// - A row that just changed (the flash) is black on amber: a bar of its own, unlike the
///   headers' coloured text and the cursor's cyan, reading on both backgrounds.
/// - Black is colour 16 of the 256, not colour 0, wherever text may be bold on it (a search's
///   marks on the bar or the flash): xterm draws bold in colours 0–7 in their bright twins
///   (`boldColors`), and bold black as grey, 2:1 on cyan. With 8 colours, where black can only
///   be colour 0, such text is not bold (``boldKeepsColours``).
/// - With 256 colours, a known background and `bce`, every other team row is striped with a
///   grey a step off the background (a TV at 250 columns puts a name and its wins 1,000 pixels
///   apart); elsewhere rows are not striped.
public struct Palette: Equatable, Sendable {
    /// Colour numbers, as `init_pair` takes them.
    public var accent: Int16
    /// nil: faint text instead of a colour.
    public var subdued: Int16?
    /// nil: reverse video instead of colours.
    public var bar: (foreground: Int16, background: Int16)?
    /// A row that just changed.
    public var flash: (foreground: Int16, background: Int16)
    /// The background of striped rows; nil: no stripes.
    public var stripe: Int16?

    /// Equal when every colour is (tuples are not `Equatable`).
    public static func == (a: Palette, b: Palette) -> Bool {
        a.accent == b.accent && a.subdued == b.subdued && a.bar?.foreground == b.bar?.foreground
            && a.bar?.background == b.bar?.background && a.flash == b.flash && a.stripe == b.stripe
    }

    /// Whether bold text keeps its colour on a background of these colours: not where its
    /// colour is one of the eight that bold makes bright (black as grey, in xterm).
    public static func boldKeepsColours(foreground: Int16) -> Bool {
        !(0..<8).contains(foreground)
    }

    /// - Parameters:
    ///   - background: the terminal's background, nil when it could not be told.
    ///   - colors: how many colours the terminal has (terminfo's `colors`).
    ///   - erasesInColor: whether the terminal erases in the current background colour (`bce`).
    public init(background: TerminalBackground?, colors: Int, erasesInColor: Bool) {
        let many = colors >= 256
        switch background {
        case .dark:
            accent = 6
            subdued = many ? 245 : nil
        case .light:
            accent = many ? 25 : 4
            subdued = many ? 242 : nil
        case nil:
            accent = many ? 31 : 5
            subdued = many ? 244 : nil
        }
        let black: Int16 = many ? 16 : 0
        bar = erasesInColor ? (foreground: black, background: 6) : nil
        flash = (foreground: black, background: many ? 222 : 3)
        stripe =
            switch (background, many && erasesInColor) {
            case (.dark?, true): 236
            case (.light?, true): 254
            default: nil
            }
    }
}
