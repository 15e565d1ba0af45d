import Synchronization

/// A snapshot's sections, listed from the results as they stood when the snapshot was taken,
/// the first time they are read.
///
/// A delegate is handed a snapshot at its first change set, before the controller knows
/// whether it implements the snapshot callback, and listing every row id is O(n): a pause at
/// a million rows for a delegate that never reads it. Holding the results instead costs
/// nothing until they change, and then only the parts that change are copied.
final class SnapshotSections: Sendable {
    private enum Contents {
        case listed([(name: String, rowIDs: [Int64])])
        case deferred(ResultsState)
    }

    private let contents: Mutex<Contents>

    init(_ sections: [(name: String, rowIDs: [Int64])]) {
        contents = Mutex(.listed(sections))
    }

    init(deferring state: ResultsState) {
        contents = Mutex(.deferred(state))
    }

    var sections: [(name: String, rowIDs: [Int64])] {
        contents.withLock { contents in
            switch contents {
            case let .listed(sections):
                return sections
            case let .deferred(state):
                let sections = state.sectionsAndRowIDs()
                contents = .listed(sections)
                return sections
            }
        }
    }
}
