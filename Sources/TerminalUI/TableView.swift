/// A position in a sectioned table: a section and a row inside it.
public struct TableIndex: Hashable, Comparable, Sendable {
    public var section: Int
    public var row: Int
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }
    public static func < (a: TableIndex, b: TableIndex) -> Bool { (a.section, a.row) < (b.section, b.row) }
}

/// What a table view shows; asked only for the rows on screen.
public protocol TableViewDataSource: AnyObject {
    func numberOfSections() -> Int
    func numberOfRows(inSection section: Int) -> Int
    func headerText(forSection section: Int) -> String
    func rowText(at index: TableIndex, width: Int) -> String
    /// A style added to a row's own (the cursor's reverse video, the dimming under an overlay).
    func rowStyle(at index: TableIndex) -> TextStyle
    /// Columns of the row's text to draw marked, bold and underlined: a search's matches, as
    /// less and htop show them. A data source whose marks change redraws the rows
    /// (``TableView/setNeedsDisplay()``).
    func rowMarks(at index: TableIndex, width: Int) -> [Range<Int>]
}

extension TableViewDataSource {
    public func rowStyle(at index: TableIndex) -> TextStyle { [] }
    public func rowMarks(at index: TableIndex, width: Int) -> [Range<Int>] { [] }
}

/// One batch of changes, with table-view rules: removals address the state before the batch,
/// insertions the state after it; a reload names a row in both.
public struct TableUpdates: Sendable {
    public var deletedSections: [Int] = []
    public var insertedSections: [Int] = []
    public var deletedRows: [TableIndex] = []
    public var insertedRows: [TableIndex] = []
    public var movedRows: [(from: TableIndex, to: TableIndex)] = []
    public var reloadedRows: [(from: TableIndex, to: TableIndex)] = []
    public init() {}

    /// Empties every list, keeping the room of those no longer than `capacity`: a caller that
    /// fills one batch after another (a load's steps of thousands of rows) then grows no list
    /// again, while a rare huge batch does not stay in memory.
    public mutating func removeAll(keepingCapacityUpTo capacity: Int) {
        func empty<Element>(_ list: inout [Element]) {
            list.removeAll(keepingCapacity: list.capacity <= capacity)
        }
        empty(&deletedSections)
        empty(&insertedSections)
        empty(&deletedRows)
        empty(&insertedRows)
        empty(&movedRows)
        empty(&reloadedRows)
    }
}

/// A scrolling, sectioned list with a cursor, drawn into a band of a ``Surface``.
///
/// Lines are numbered across the whole table: each section is a header line followed by its
/// rows. The view redraws only the screen rows whose content changed: after a batch update it
/// works out, for every visible row, which old line it now shows, and redraws a row only when
/// that differs from what the row showed, when its line was reloaded, when its place inside its
/// section changed (rows may show their rank), or when a header's text changed. Changes above
/// the visible band move the scroll position instead of the content.
public final class TableView {
    public weak var dataSource: (any TableViewDataSource)?
    /// The first screen row of the band and its height.
    public private(set) var top = 0
    public private(set) var height = 0
    public private(set) var width = 0
    /// The line shown at the band's first row.
    public private(set) var scrollTop = 0
    public private(set) var cursor: TableIndex?

    /// Rows drawn by the last ``draw(on:)``, split by kind.
    public private(set) var lastDrawnItemRows = 0
    public private(set) var lastDrawnHeaderRows = 0

    /// Flat line index of each section's header.
    private var sectionStarts: [Int] = []
    private var lineCount = 0
    private var needsFullRedraw = true
    private var dirtyRows: Set<Int> = []
    /// What each band row showed when last drawn (header text, or a row marker).
    private var drawnHeaders: [Int: String] = [:]
    private var drawnCursorRow: Int?

    /// Draws every row dimmed, as under a box drawn over the list.
    public var isDimmed = false {
        didSet { if isDimmed != oldValue { needsFullRedraw = true } }
    }

    /// A character drawn over the first column of the cursor's row, so that the selection can be
    /// told without its reverse video (a screen reader, a terminal without attributes); nil:
    /// the reverse video alone.
    public var cursorMark: Character? {
        didSet { if cursorMark != oldValue { needsFullRedraw = true } }
    }

    public init() {}

    // MARK: - Layout

    /// Places the band on the surface; a change of size redraws everything and scrolls as
    /// little as needed to keep the cursor's row on screen.
    public func setFrame(top: Int, height: Int, width: Int) {
        if (top, height, width) != (self.top, self.height, self.width) { needsFullRedraw = true }
        (self.top, self.height, self.width) = (top, max(0, height), width)
        clampScroll()
        scrollToCursor()
    }

    /// Re-reads the whole table and redraws everything.
    public func reloadData() {
        rebuildLayout()
        needsFullRedraw = true
        if let cursor, !isValid(cursor) { self.cursor = firstRow(from: 0) }
        if cursor == nil { cursor = firstRow(from: 0) }
        clampScroll()
        scrollToCursor()
    }

    private func rebuildLayout() {
        sectionStarts = []
        var line = 0
        for section in 0..<(dataSource?.numberOfSections() ?? 0) {
            sectionStarts.append(line)
            line += 1 + (dataSource?.numberOfRows(inSection: section) ?? 0)
        }
        lineCount = line
    }

    private func isValid(_ index: TableIndex) -> Bool {
        sectionStarts.indices.contains(index.section) && index.row >= 0 && index.row < rowCount(index.section)
    }

    private func rowCount(_ section: Int) -> Int {
        let end = section + 1 < sectionStarts.count ? sectionStarts[section + 1] : lineCount
        return end - sectionStarts[section] - 1
    }

    public func line(of index: TableIndex) -> Int { sectionStarts[index.section] + 1 + index.row }

    /// The table index at a line, or nil for a header line.
    public func index(atLine line: Int) -> TableIndex? {
        guard line >= 0, line < lineCount else { return nil }
        let section = sectionContaining(line: line)
        let row = line - sectionStarts[section] - 1
        return row >= 0 ? TableIndex(section: section, row: row) : nil
    }

    private func sectionContaining(line: Int) -> Int {
        var (low, high) = (0, sectionStarts.count - 1)
        while low < high {
            let middle = (low + high + 1) / 2
            if sectionStarts[middle] <= line { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The table index drawn at a screen row (for mouse clicks), or nil.
    public func index(atScreenRow row: Int) -> TableIndex? {
        guard row >= top, row < top + height else { return nil }
        if row == top && hasStickyHeader { return nil }
        return index(atLine: scrollTop + row - top)
    }

    /// The cursor's place among all rows (1-based, headers not counted) and the number of rows.
    public var cursorPosition: (ordinal: Int, count: Int)? {
        guard let cursor, isValid(cursor) else { return nil }
        return (line(of: cursor) - cursor.section, lineCount - sectionStarts.count)
    }

    /// Whether lines continue above the band's first row or below its last.
    public var hasLinesAbove: Bool { scrollTop > 0 }
    public var hasLinesBelow: Bool { scrollTop + height < lineCount }

    /// The screen row where the cursor is drawn, if visible.
    public var cursorScreenRow: Int? {
        guard let cursor, isValid(cursor) else { return nil }
        let offset = line(of: cursor) - scrollTop
        guard offset >= (hasStickyHeader ? 1 : 0), offset < height else { return nil }
        return top + offset
    }

    /// Whether the band's first row shows the header of the section scrolled into (sticky header).
    private var hasStickyHeader: Bool {
        height > 1 && index(atLine: scrollTop) != nil
    }

    // MARK: - Cursor and scrolling

    /// Puts the cursor on a row (nil: no cursor) and scrolls to show it.
    public func setCursor(_ index: TableIndex?) {
        cursor = index.flatMap { isValid($0) ? $0 : nil }
        scrollToCursor()
    }

    /// Moves the cursor by `delta` rows, stepping over section headers.
    public func moveCursor(by delta: Int) {
        guard let cursor else { return setCursor(firstRow(from: 0)) }
        var line = self.line(of: cursor)
        var remaining = abs(delta)
        while remaining > 0 {
            var next = line + (delta > 0 ? 1 : -1)
            while next >= 0 && next < lineCount && index(atLine: next) == nil { next += delta > 0 ? 1 : -1 }
            guard next >= 0 && next < lineCount else { break }
            line = next
            remaining -= 1
        }
        setCursor(index(atLine: line))
    }

    public func moveCursorToFirst() { setCursor(firstRow(from: 0)) }
    public func moveCursorToLast() { setCursor(lastRow()) }
    public func pageDown() { moveCursor(by: max(1, height - 2)) }
    public func pageUp() { moveCursor(by: -max(1, height - 2)) }
    public func halfPageDown() { moveCursor(by: max(1, height / 2)) }
    public func halfPageUp() { moveCursor(by: -max(1, height / 2)) }

    /// Puts the cursor on the first row of `section` and its header at the band's top.
    public func showSection(_ section: Int) {
        guard sectionStarts.indices.contains(section), let first = firstRow(from: sectionStarts[section]) else {
            return
        }
        setScrollTop(sectionStarts[section])
        setCursor(first)
    }

    private func firstRow(from line: Int) -> TableIndex? {
        var line = line
        while line < lineCount {
            if let index = index(atLine: line) { return index }
            line += 1
        }
        return nil
    }

    private func lastRow() -> TableIndex? {
        var line = lineCount - 1
        while line >= 0 {
            if let index = index(atLine: line) { return index }
            line -= 1
        }
        return nil
    }

    /// Scrolls the least needed to show the cursor below a sticky header (a band of one row
    /// has none: it shows the cursor's row alone).
    private func scrollToCursor() {
        guard let cursor, isValid(cursor), height > 0 else { return }
        let line = self.line(of: cursor)
        let stickyRows = height > 1 ? 1 : 0
        var newTop = scrollTop
        if line - newTop >= height { newTop = line - height + 1 }
        if line < newTop + stickyRows {
            // Show the section's own header above its first rows; otherwise leave room for the sticky header.
            newTop = cursor.row < height - 1 ? sectionStarts[cursor.section] : line - stickyRows
        }
        setScrollTop(newTop)
    }

    /// Shows `line` at the band's first row (as far as the table's length allows).
    public func scroll(toLine line: Int) { setScrollTop(line) }

    private func setScrollTop(_ value: Int) {
        let clamped = max(0, min(value, max(0, lineCount - height)))
        if clamped != scrollTop {
            scrollTop = clamped
            needsFullRedraw = true
        }
    }

    private func clampScroll() { setScrollTop(scrollTop) }

    // MARK: - Batch updates

    /// Applies one batch of changes (the data source already answers with the new state) and
    /// marks the rows whose content changed; the cursor then goes to `cursorAfter`.
    /// When `cursorAfter` is nil and the cursor's own row was deleted, the cursor stays where
    /// that row was: on the row that took its place in its section, else on the row above.
    public func performBatchUpdates(_ updates: TableUpdates, cursorAfter: TableIndex?) {
        let oldStarts = sectionStarts, oldLineCount = lineCount
        let oldCursorLine = cursor.flatMap { isValid($0) ? line(of: $0) : nil }
        func oldLine(_ index: TableIndex) -> Int { oldStarts[index.section] + 1 + index.row }
        func oldSectionLines(_ section: Int) -> Range<Int> {
            let end = section + 1 < oldStarts.count ? oldStarts[section + 1] : oldLineCount
            return oldStarts[section]..<end
        }
        rebuildLayout()

        let removed = LineSet(
            lines: updates.deletedRows.map(oldLine) + updates.movedRows.map { oldLine($0.from) },
            sections: updates.deletedSections.map(oldSectionLines))
        let inserted = LineSet(
            lines: updates.insertedRows.map(line(of:)) + updates.movedRows.map { line(of: $0.to) },
            sections: updates.insertedSections.map { section in
                sectionStarts[section]..<(section + 1 < sectionStarts.count ? sectionStarts[section + 1] : lineCount)
            })
        let reloaded = Set(updates.reloadedRows.map { line(of: $0.to) })

        // Keep the content at the top of the band where it was: lines removed or inserted above
        // it shift the scroll position, not what is shown. The new top is the least line whose
        // surviving lines above it are the old top's: a fixed point, reached in a few rounds.
        let oldTop = scrollTop
        let kept = oldTop - removed.count(below: oldTop)
        var newTop = kept
        while case let next = kept + inserted.count(below: newTop + 1), next != newTop { newTop = next }
        scrollTop = max(0, min(newTop, max(0, lineCount - height)))

        // For each band row, the old line it now shows (nil: a new line) against the old line
        // it showed before.
        if !needsFullRedraw {
            for row in 0..<height {
                let newLine = scrollTop + row
                guard newLine < lineCount else {
                    if oldTop + row < oldLineCount { dirtyRows.insert(row) }
                    continue
                }
                let source = oldLineShown(atNewLine: newLine, removed: removed, inserted: inserted)
                if source != oldTop + row || reloaded.contains(newLine) {
                    dirtyRows.insert(row)
                } else if let source, let index = index(atLine: newLine),
                    oldRow(atLine: source, starts: oldStarts) != index.row
                {
                    // Same line, another place in its section: a row that shows its rank changed.
                    dirtyRows.insert(row)
                }
            }
        }
        cursor =
            cursorAfter.flatMap { isValid($0) ? $0 : nil }
            ?? oldCursorLine.flatMap { removed.contains($0) ? rowNear(removedLine: $0, removed, inserted) : nil }
            ?? cursor.flatMap { isValid($0) ? $0 : nil }
        if cursor == nil { cursor = firstRow(from: 0) }
        scrollToCursor()
    }

    /// The row that now stands where a removed line was: the next surviving line, if it is a
    /// row (the one below in the same section), else the row above it (the removed row was the
    /// last of its section, or its section went with it).
    private func rowNear(removedLine: Int, _ removed: LineSet, _ inserted: LineSet) -> TableIndex? {
        // The survivors keep their order: the one after the removed line is the k-th survivor,
        // and its new line is the least fixed point of `k + (inserted lines at or before it)`.
        let survivorsBefore = removedLine - removed.count(below: removedLine)
        var next = survivorsBefore
        while case let moved = survivorsBefore + inserted.count(below: next + 1), moved != next { next = moved }
        if next < lineCount, let index = index(atLine: next) { return index }
        var line = min(next, lineCount) - 1
        while line >= 0 {
            if let index = index(atLine: line) { return index }
            line -= 1
        }
        return firstRow(from: 0)
    }

    /// The row number inside its section of a line in a layout with these section starts.
    private func oldRow(atLine line: Int, starts: [Int]) -> Int {
        let section = lowerBound(starts, line + 1) - 1
        return section >= 0 ? line - starts[section] - 1 : -1
    }

    /// The old line a new line shows, or nil when it is newly inserted.
    ///
    /// A surviving line keeps its rank among surviving lines: the new line is the k-th line
    /// not inserted, so it shows the k-th old line not removed — the fixed point of
    /// `k + (removed lines at or before it)`.
    private func oldLineShown(atNewLine line: Int, removed: LineSet, inserted: LineSet) -> Int? {
        if inserted.contains(line) { return nil }
        let rank = line - inserted.count(below: line)
        var source = rank
        while true {
            let next = rank + removed.count(below: source + 1)
            if next == source { return source }
            source = next
        }
    }

    private func lowerBound(_ values: [Int], _ value: Int) -> Int {
        var (low, high) = (0, values.count)
        while low < high {
            let middle = (low + high) / 2
            if values[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    // MARK: - Drawing

    /// Redraws everything on the next ``draw(on:)``.
    public func setNeedsDisplay() { needsFullRedraw = true }

    /// Whether the next ``draw(on:)`` has rows to draw: rows whose content or place changed
    /// since the last one, or every row.
    public var hasRowsToDraw: Bool { needsFullRedraw || !dirtyRows.isEmpty }

    /// Redraws these rows on the next ``draw(on:)`` (their style changed, say), if visible.
    public func setNeedsDisplay(rowsAt indexes: [TableIndex]) {
        for index in indexes where isValid(index) {
            let row = line(of: index) - scrollTop
            if row >= 0 && row < height { dirtyRows.insert(row) }
        }
    }

    /// Draws the rows that changed (every row after a scroll, resize or reload).
    public func draw(on surface: any Surface) {
        lastDrawnItemRows = 0
        lastDrawnHeaderRows = 0
        guard let dataSource, height > 0 else { return }
        var rowsToDraw = needsFullRedraw ? Set(0..<height) : dirtyRows
        let cursorRow = cursorScreenRow.map { $0 - top }
        if cursorRow != drawnCursorRow {
            if let old = drawnCursorRow { rowsToDraw.insert(old) }
            if let cursorRow { rowsToDraw.insert(cursorRow) }
        }
        // Headers carry their section's row count, so a header is redrawn when its text changed.
        for row in 0..<height where !rowsToDraw.contains(row) {
            if let section = headerSection(atBandRow: row) {
                if drawnHeaders[row] != dataSource.headerText(forSection: section) { rowsToDraw.insert(row) }
            } else if drawnHeaders[row] != nil {
                rowsToDraw.insert(row)
            }
        }
        for row in rowsToDraw.sorted() {
            if let section = headerSection(atBandRow: row) {
                let text = dataSource.headerText(forSection: section)
                surface.drawLine(top + row, text, style: isDimmed ? [.dim] : [.bold, .accent])
                drawnHeaders[row] = text
                lastDrawnHeaderRows += 1
            } else if let index = index(atLine: scrollTop + row) {
                var style = dataSource.rowStyle(at: index)
                if row == cursorRow { style.insert(.reverse) }
                if isDimmed { style = [.dim] }
                var text = dataSource.rowText(at: index, width: width)
                if row == cursorRow, let cursorMark, !isDimmed {
                    text = String(cursorMark) + String(text.dropFirst())
                }
                surface.drawLine(top + row, text, style: style)
                if !isDimmed {
                    for columns in dataSource.rowMarks(at: index, width: width) {
                        surface.draw(
                            row: top + row, column: columns.lowerBound, Self.text(text, in: columns),
                            style: style.union([.bold, .underline]))
                    }
                }
                drawnHeaders[row] = nil
                lastDrawnItemRows += 1
            } else {
                surface.drawLine(top + row, "", style: [])
                drawnHeaders[row] = nil
            }
        }
        drawnCursorRow = cursorRow
        dirtyRows = []
        needsFullRedraw = false
    }

    /// The characters of `text` that start inside `columns`.
    private static func text(_ text: String, in columns: Range<Int>) -> String {
        var column = 0
        var part = ""
        for character in text {
            if columns.contains(column) { part.append(character) }
            column += TextWidth.columns(of: character)
            if column >= columns.upperBound { break }
        }
        return part
    }

    /// The section whose header is drawn at a band row (a header line, or the sticky header).
    private func headerSection(atBandRow row: Int) -> Int? {
        let line = scrollTop + row
        guard line < lineCount else { return nil }
        if row == 0 && hasStickyHeader { return sectionContaining(line: line) }
        return index(atLine: line) == nil ? sectionContaining(line: line) : nil
    }
}
