/// An in-memory screen in the spirit of ratatui's `TestBackend`: it records what was drawn, cell
/// by cell, and counts the rows drawn, so a program can be run headless and its screen read.
public final class GridSurface: Surface, TerminalControl {
    public private(set) var rows: Int
    public private(set) var columns: Int
    /// One string per cell; a wide character occupies its cell and leaves "" in the next.
    private var cells: [[String]]
    private var styles: [[TextStyle]]
    /// Rows written by `drawLine` since the last `resetCounters()`.
    public private(set) var drawnRows: [Int] = []
    public private(set) var cursor: (row: Int, column: Int) = (0, 0)
    public private(set) var isCursorVisible = true
    public private(set) var frames = 0

    public init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
        cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
        styles = Array(repeating: Array(repeating: [], count: columns), count: rows)
    }

    public func resize(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
        cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
        styles = Array(repeating: Array(repeating: [], count: columns), count: rows)
    }

    public func drawLine(_ row: Int, _ text: String, style: TextStyle) {
        guard (0..<rows).contains(row) else { return }
        drawnRows.append(row)
        cells[row] = Array(repeating: " ", count: columns)
        styles[row] = Array(repeating: [], count: columns)
        let fitted = TextWidth.truncate(TerminalText.sanitized(text), toColumns: columns)
        draw(
            row: row, column: 0, fitted + String(repeating: " ", count: columns - TextWidth.columns(of: fitted)),
            style: [])
        draw(row: row, column: 0, fitted, style: style)
    }

    public func draw(row: Int, column: Int, _ text: String, style: TextStyle) {
        guard (0..<rows).contains(row) else { return }
        var x = column
        for character in TerminalText.sanitized(text) {
            let width = TextWidth.columns(of: character)
            guard x >= 0, x + width <= columns else { break }
            // As a terminal does: writing over either half of a wide character blanks the other.
            if cells[row][x] == "" && x > 0 { cells[row][x - 1] = " " }
            if x + width < columns && cells[row][x + width] == "" { cells[row][x + width] = " " }
            cells[row][x] = String(character)
            styles[row][x] = style
            if width == 2 {
                cells[row][x + 1] = ""
                styles[row][x + 1] = style
            }
            x += width
        }
    }

    public func placeCursor(row: Int, column: Int) { cursor = (row, column) }

    public func setCursorVisible(_ visible: Bool) { isCursorVisible = visible }

    public func present() { frames += 1 }

    /// How often the program asked to paint everything again (Ctrl-L, a resize).
    public private(set) var invalidations = 0
    /// How often the program gave the terminal back (Ctrl-Z); a grid resumes at once.
    public private(set) var suspensions = 0

    /// The text of one row, trailing spaces removed.
    public func line(_ row: Int) -> String {
        var text = cells[row].joined()
        while text.last == " " { text.removeLast() }
        return text
    }

    /// Every row's text.
    public var lines: [String] { (0..<rows).map(line) }

    /// The style of the cell at a position.
    public func style(row: Int, column: Int) -> TextStyle { styles[row][column] }

    public func resetCounters() { drawnRows = [] }

    public func invalidate() { invalidations += 1 }

    public func suspend() { suspensions += 1 }
}
