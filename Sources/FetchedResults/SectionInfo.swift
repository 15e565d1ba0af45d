import GRDB

/// One section of the fetched results (Core Data's `NSFetchedResultsSectionInfo`).
public struct SectionInfo<Record> {
    /// The section key's value, as text ("" for NULL).
    public let name: String
    /// The title shown in a section index, from
    /// ``FetchedResultsController/sectionIndexTitle(forSectionName:)``.
    public let indexTitle: String?
    /// The objects of this section, in order.
    public let objects: [Record]

    /// How many objects the section holds.
    public var numberOfObjects: Int { objects.count }
}

extension SectionInfo: Sendable where Record: Sendable {}

/// A position in sectioned results: a section and a row inside it.
public struct IndexPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The section's index.
    public var section: Int
    /// The row's index inside its section.
    public var row: Int

    /// The path of `row` in `section` (the order of UIKit's `IndexPath(row:section:)`).
    public init(row: Int, section: Int) {
        self.section = section
        self.row = row
    }

    public static func < (lhs: IndexPath, rhs: IndexPath) -> Bool {
        (lhs.section, lhs.row) < (rhs.section, rhs.row)
    }

    public var description: String { "[\(section), \(row)]" }
}
