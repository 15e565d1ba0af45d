import FetchedResultsCore
import GRDB

/// The visible window of the ordered rows, cut into sections.
///
/// A section is a maximal run of rows whose keys start with the same first component (the
/// first sort value, folded by its collation). Sections are found by binary search, so building
/// a layout costs O(sections × log n), not O(n).
struct ResultsLayout {
    struct Section {
        /// Equal for exactly the rows of this section: the encoded first sort value.
        let identity: [UInt8]
        let name: String
        /// Visible positions of the section's rows.
        let range: Range<Int>
    }

    /// Positions in the ordered rows that are visible (fetchOffset / fetchLimit).
    let window: Range<Int>
    let sections: [Section]

    /// - Parameter name: the name of a section, given its identity and the ordered position of
    ///   its first row.
    init(keys: OrderedKeys, request: TableFetchRequest, encoding: SortKeyEncoding?,
         name: ([UInt8], Int) throws -> String) rethrows {
        let lower = min(request.fetchOffset, keys.count)
        let upper = request.fetchLimit > 0 ? min(lower + request.fetchLimit, keys.count) : keys.count
        window = lower..<upper
        guard !window.isEmpty else {
            sections = []
            return
        }
        guard let encoding else {
            sections = [Section(identity: [], name: "", range: 0..<window.count)]
            return
        }
        var found: [Section] = []
        var start = window.lowerBound
        while start < window.upperBound {
            let key = keys.key(at: start)
            let identity = Array(key.prefix(key.withUnsafeBufferPointer(encoding.firstComponentLength)))
            let end = keys.endOfRun(withPrefix: identity, in: start..<window.upperBound)
            found.append(Section(
                identity: identity,
                name: try name(identity, start),
                range: (start - window.lowerBound)..<(end - window.lowerBound)))
            start = end
        }
        sections = found
    }

    var count: Int { window.count }

    /// The visible position of an ordered-rows position, or nil when outside the window.
    func visiblePosition(_ position: Int) -> Int? {
        window.contains(position) ? position - window.lowerBound : nil
    }

    /// The section index holding a visible position.
    func sectionIndex(ofVisible position: Int) -> Int {
        var (low, high) = (0, sections.count - 1)
        while low < high {
            let middle = (low + high + 1) / 2
            if sections[middle].range.lowerBound <= position { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Whether a visible position holds the first row of its section.
    func isSectionStart(_ position: Int) -> Bool {
        sections[sectionIndex(ofVisible: position)].range.lowerBound == position
    }

    func indexPath(ofVisible position: Int) -> IndexPath {
        let section = sectionIndex(ofVisible: position)
        return IndexPath(row: position - sections[section].range.lowerBound, section: section)
    }

    func visiblePosition(of indexPath: IndexPath) -> Int? {
        guard sections.indices.contains(indexPath.section) else { return nil }
        let range = sections[indexPath.section].range
        let position = range.lowerBound + indexPath.row
        return indexPath.row >= 0 && range.contains(position) ? position : nil
    }

    /// A section value as text: the section's name.
    static func name(of value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return ""
        case let .string(text): return text
        case let .int64(number): return String(number)
        case let .double(number): return String(number)
        case let .blob(data): return String(decoding: data, as: UTF8.self)
        }
    }
}
