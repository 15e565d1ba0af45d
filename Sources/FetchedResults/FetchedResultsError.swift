/// Misuse of a fetched results controller, reported by ``FetchedResultsController/performFetch()``
/// instead of a crash.
public enum FetchedResultsError: Error, Equatable, CustomStringConvertible {
    /// The request has no sort descriptor, so there is no order to keep.
    case missingSortDescriptors(table: String)
    /// The section key path is not the first sort descriptor's key.
    case sectionKeyPathMismatch(sectionNameKeyPath: String, firstSortKey: String)

    public var description: String {
        switch self {
        case let .missingSortDescriptors(table):
            return "a fetched results controller needs a fetch request with at least one sort descriptor (table \"\(table)\" has none): add one, such as ColumnSortDescriptor(key: \"name\")"
        case let .sectionKeyPathMismatch(path, key):
            return "sections come from \"\(path)\" but the first sort descriptor sorts by \"\(key)\"; make the first sort descriptor sort by \"\(path)\" so that each section's rows are contiguous"
        }
    }
}
