/// A framed box drawn over whatever is on a band of the screen (help, a dialog), centred, so
/// the list stays visible (dimmed) around it.
///
/// The box is drawn cell by cell with ``Surface/draw(row:column:_:style:)`` and leaves the rest
/// of each row alone; draw it after everything under it, in every frame it is shown (a row
/// redrawn under it would otherwise cover it).
public struct OverlayBox {
    /// The lines inside the frame; the first is the title, drawn in bold.
    public var lines: [String]
    /// The widest the inside may be, in columns.
    public var maximumWidth: Int

    public init(lines: [String], maximumWidth: Int = 72) {
        self.lines = lines
        self.maximumWidth = maximumWidth
    }

    /// The cells a box covers: its frame's first row and column, and its outer size.
    public struct Frame: Equatable, Sendable {
        /// The screen row and column of the frame's top left corner.
        public var row: Int
        public var column: Int
        /// The size with the frame, in columns and rows.
        public var width: Int
        public var height: Int
    }

    /// Where the box goes in a band of `height` rows from `top`, `columns` wide: the frame's
    /// first row and column and the inside's width.
    public func placement(top: Int, height: Int, columns: Int) -> (row: Int, column: Int, innerWidth: Int) {
        let widest = lines.map(TextWidth.columns(of:)).max() ?? 0
        let innerWidth = max(1, min(maximumWidth, widest, columns - 4))
        let outerHeight = lines.count + 2
        let row = top + max(0, (height - outerHeight) / 2)
        let column = max(0, (columns - innerWidth - 4) / 2)
        return (row, column, innerWidth)
    }

    /// The cells the box covers in that band. When they change (the box grew, shrank or
    /// moved), what is under the old box must be drawn again: the box leaves the rest of its
    /// rows alone.
    public func frame(top: Int, height: Int, columns: Int) -> Frame {
        let place = placement(top: top, height: height, columns: columns)
        return Frame(row: place.row, column: place.column, width: place.innerWidth + 4, height: lines.count + 2)
    }

    /// Draws the frame and the lines; rows beyond the band are left out.
    public func draw(on surface: any Surface, top: Int, height: Int) {
        let place = placement(top: top, height: height, columns: surface.columns)
        func put(_ row: Int, _ column: Int, _ text: String, style: TextStyle = []) {
            if row >= top && row < top + height { surface.draw(row: row, column: column, text, style: style) }
        }
        let rule = String(repeating: "─", count: place.innerWidth + 2)
        put(place.row, place.column, "┌" + rule + "┐")
        for (offset, line) in lines.enumerated() {
            let row = place.row + 1 + offset
            put(row, place.column, "│ ")
            put(
                row, place.column + 2, TextWidth.fit(line, toColumns: place.innerWidth),
                style: offset == 0 ? [.bold] : [])
            put(row, place.column + 2 + place.innerWidth, " │")
        }
        put(place.row + lines.count + 1, place.column, "└" + rule + "┘")
    }

    /// The screen position of a column inside the box's `line`-th line.
    public func position(ofLine line: Int, column: Int, top: Int, height: Int, columns: Int) -> (row: Int, column: Int)
    {
        let place = placement(top: top, height: height, columns: columns)
        return (place.row + 1 + line, place.column + 2 + column)
    }
}
