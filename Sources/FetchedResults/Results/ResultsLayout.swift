/// The visible window of the ordered rows, cut into sections.
///
/// A section is a maximal run of rows whose keys start with the same first component (the
/// first sort value, folded by its collation). Sections are found by binary search, so building
/// a layout costs O(sections × log n), not O(n).
package struct ResultsLayout {
    package struct Section {
        /// Equal for exactly the rows of this section: the encoded first sort value.
        package let identity: [UInt8]
        package let name: String
        /// Visible positions of the section's rows.
        package let range: Range<Int>
    }

    /// Positions in the ordered rows that are visible (fetchOffset / fetchLimit).
    package let window: Range<Int>
    package private(set) var sections: [Section]

    /// - Parameters:
    ///   - fetchOffset: ordered rows skipped before the window.
    ///   - fetchLimit: the window's largest size, 0 for no limit.
    ///   - firstComponentLength: the length of a key's first component (the section value),
    ///     or nil for one section holding every row (even none).
    ///   - name: the name of a section, given its identity and the ordered position of its
    ///     first row.
    package init(
        keys: OrderedKeys, fetchOffset: Int, fetchLimit: Int,
        firstComponentLength: ((UnsafeBufferPointer<UInt8>) -> Int)?,
        name: ([UInt8], Int) throws -> String
    ) rethrows {
        let lower = min(fetchOffset, keys.count)
        let upper = fetchLimit > 0 ? min(lower + fetchLimit, keys.count) : keys.count
        window = lower..<upper
        // Unsectioned results are one section, empty or not, as in Core Data: a table view's
        // first row then arrives as a row insert, and its last leaves as a row delete.
        guard let firstComponentLength else {
            sections = [Section(identity: [], name: "", range: 0..<window.count)]
            return
        }
        guard !window.isEmpty else {
            sections = []
            return
        }
        var found: [Section] = []
        try Self.appendSections(
            of: keys, from: window.lowerBound, window: window, firstComponentLength, name,
            to: &found)
        sections = found
    }

    /// The layout of `keys` when they are `old`'s keys with others appended after the last (a
    /// step of a progressive load), without a window: `old`'s sections but the last are kept
    /// as they are, and only the rows from the last one's start are cut again — O(new sections
    /// × log n) instead of every section.
    package init(
        appendingTo old: ResultsLayout, keys: OrderedKeys,
        firstComponentLength: ((UnsafeBufferPointer<UInt8>) -> Int)?,
        name: ([UInt8], Int) throws -> String
    ) rethrows {
        precondition(
            old.window.lowerBound == 0 && old.window.upperBound <= keys.count,
            "an unwindowed layout of fewer rows")
        guard let firstComponentLength, let last = old.sections.last else {
            self = try ResultsLayout(
                keys: keys, fetchOffset: 0, fetchLimit: 0,
                firstComponentLength: firstComponentLength, name: name)
            return
        }
        window = 0..<keys.count
        var found = Array(old.sections.dropLast())
        try Self.appendSections(
            of: keys, from: last.range.lowerBound, window: window, firstComponentLength, name,
            to: &found)
        sections = found
    }

    /// Names the section at `index` `name`, keeping every range: after a transaction that left
    /// the row starting it first but changed its value's case, say. O(1).
    package mutating func setName(_ name: String, ofSection index: Int) {
        let section = sections[index]
        sections[index] = Section(identity: section.identity, name: name, range: section.range)
    }

    /// This layout with the same sections and ranges, the sections at `renamed` named again:
    /// after a transaction that changed which row starts them but moved no section boundary
    /// (a +1 win that lifts a team to the top of its zone) — O(renamed) instead of a new
    /// layout's O(sections × log n).
    package func renaming(
        sections renamed: some Sequence<Int>, name: ([UInt8], Int) throws -> String
    ) rethrows -> ResultsLayout {
        var sections = self.sections
        for index in renamed {
            let section = sections[index]
            sections[index] = Section(
                identity: section.identity,
                name: try name(section.identity, window.lowerBound + section.range.lowerBound),
                range: section.range)
        }
        return ResultsLayout(window: window, sections: sections)
    }

    private init(window: Range<Int>, sections: [Section]) {
        self.window = window
        self.sections = sections
    }

    /// Appends the sections of the rows of `window` from `start` (where a section starts).
    private static func appendSections(
        of keys: OrderedKeys, from start: Int, window: Range<Int>,
        _ firstComponentLength: (UnsafeBufferPointer<UInt8>) -> Int,
        _ name: ([UInt8], Int) throws -> String, to found: inout [Section]
    ) rethrows {
        var start = start
        while start < window.upperBound {
            let key = keys.key(at: start)
            let identity = Array(key.prefix(key.withUnsafeBufferPointer(firstComponentLength)))
            let end = keys.endOfRun(withPrefix: identity, in: start..<window.upperBound)
            found.append(
                Section(
                    identity: identity,
                    name: try name(identity, start),
                    range: (start - window.lowerBound)..<(end - window.lowerBound)))
            start = end
        }
    }

    package var count: Int { window.count }

    /// The visible position of an ordered-rows position, or nil when outside the window.
    package func visiblePosition(_ position: Int) -> Int? {
        window.contains(position) ? position - window.lowerBound : nil
    }

    /// The section index holding a visible position.
    package func sectionIndex(ofVisible position: Int) -> Int {
        var (low, high) = (0, sections.count - 1)
        while low < high {
            let middle = (low + high + 1) / 2
            if sections[middle].range.lowerBound <= position { low = middle } else { high = middle - 1 }
        }
        return low
    }

    package func indexPath(ofVisible position: Int) -> IndexPath {
        let section = sectionIndex(ofVisible: position)
        return IndexPath(row: position - sections[section].range.lowerBound, section: section)
    }

    package func visiblePosition(of indexPath: IndexPath) -> Int? {
        guard sections.indices.contains(indexPath.section) else { return nil }
        let range = sections[indexPath.section].range
        let position = range.lowerBound + indexPath.row
        return indexPath.row >= 0 && range.contains(position) ? position : nil
    }
}
