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

    public var numberOfObjects: Int { objects.count }
}

extension SectionInfo: Sendable where Record: Sendable {}

/// A position in sectioned results: a section and a row inside it.
public struct IndexPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var section: Int
    public var row: Int

    public init(row: Int, section: Int) {
        self.section = section
        self.row = row
    }

    public static func < (lhs: IndexPath, rhs: IndexPath) -> Bool {
        (lhs.section, lhs.row) < (rhs.section, rhs.row)
    }

    public var description: String { "[\(section), \(row)]" }
}
