/// Text attributes a surface can show.
public struct TextStyle: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The highlight bar: where the terminal has colours (and they are not disabled), the
    /// palette's bar colours; otherwise reverse video.
    public static let reverse = TextStyle(rawValue: 1)
    public static let bold = TextStyle(rawValue: 2)
    /// Shown in the accent colour where the terminal has colours (and they are not disabled).
    public static let accent = TextStyle(rawValue: 4)
    /// Subdued: the palette's grey where the terminal has 256 colours, else faint.
    public static let dim = TextStyle(rawValue: 8)
    /// Marks text inside a row (a search's matches); unlike reverse video, it never looks like
    /// the cursor's bar, and it reads on any background, with or without colours.
    public static let underline = TextStyle(rawValue: 16)
    /// A row that just changed: a highlight of its own (the palette's flash colours where the
    /// terminal has colours, bold otherwise), unlike a header's or the bar's.
    public static let flash = TextStyle(rawValue: 32)
    /// Every other row of a list: a faint background where the palette has one, so the eye
    /// follows a wide row from one end to the other; nothing elsewhere.
    public static let stripe = TextStyle(rawValue: 64)
}

/// Somewhere to draw a screen of text: a real terminal through ncursesw, or an in-memory grid
/// that a caller can read (``GridSurface``).
///
/// Drawing is buffered: nothing reaches the terminal before ``present()``, which flushes one
/// frame with the least output it can.
public protocol Surface: AnyObject {
    /// The size in rows and columns.
    var rows: Int { get }
    var columns: Int { get }
    /// Writes one line at `row`, replacing the whole row: `text` in `style`, truncated with "…"
    /// to the surface width, then blank and plain to the row's end; control characters are
    /// made harmless. (Pad the text to give a style more width.)
    func drawLine(_ row: Int, _ text: String, style: TextStyle)
    /// Writes `text` at a position without touching the rest of the row.
    func draw(row: Int, column: Int, _ text: String, style: TextStyle)
    /// Where the hardware cursor rests after the frame (screen readers follow it).
    func placeCursor(row: Int, column: Int)
    /// Shows or hides the hardware cursor: shown only where text is typed, so it never makes
    /// a notch in a highlight bar.
    func setCursorVisible(_ visible: Bool)
    /// Flushes the frame.
    func present()
}
