// The change types every results controller reports, whichever store it follows: table-view
// batch updates with index paths (Core Data's), and snapshots.

/// The kind of a change (Core Data's `NSFetchedResultsChangeType`).
public enum ChangeType: Sendable, Hashable {
    case insert, delete, move, update
}

/// One object's change in a committed transaction, with table-view batch-update paths: the old
/// path addresses the state before the batch, the new path the state after it. Each case carries
/// exactly the paths it has, so a table view's binding needs no force unwrap.
///
/// An object has one change per batch, with one exception: when its order relative to other
/// rows changed but its index path did not (rows were inserted and deleted around it), it is
/// reported as a `delete` and an `insert` at that same path, because table views reject a
/// move whose source and destination are equal.
public enum ObjectChange: Sendable, Hashable {
    /// The object entered the results at a new path.
    case insert(rowID: Int64, at: IndexPath)
    /// The object left the results from an old path.
    case delete(rowID: Int64, at: IndexPath)
    /// The object's order changed: from its old path to its new one (never equal); some of
    /// its columns may have changed too.
    case move(rowID: Int64, from: IndexPath, to: IndexPath, changedColumns: Set<String>)
    /// The object kept its order but its content changed: reload it (at its old path; its new
    /// path says where it is once the batch is applied).
    case update(rowID: Int64, from: IndexPath, to: IndexPath, changedColumns: Set<String>)

    /// The object's row id, which identifies it across changes.
    public var rowID: Int64 {
        switch self {
        case let .insert(rowID, _), let .delete(rowID, _), let .move(rowID, _, _, _), let .update(rowID, _, _, _): rowID
        }
    }

    /// What happened to the object (Core Data's `NSFetchedResultsChangeType`).
    public var type: ChangeType {
        switch self {
        case .insert: .insert
        case .delete: .delete
        case .move: .move
        case .update: .update
        }
    }

    /// Where the object was before the batch (nil for an insert).
    public var indexPath: IndexPath? {
        switch self {
        case .insert: nil
        case let .delete(_, path), let .move(_, path, _, _), let .update(_, path, _, _): path
        }
    }

    /// Where the object is after the batch (nil for a delete).
    public var newIndexPath: IndexPath? {
        switch self {
        case .delete: nil
        case let .insert(_, path), let .move(_, _, path, _), let .update(_, _, path, _): path
        }
    }

    /// The columns whose values changed (for updates and moves), so a view can redraw one cell.
    public var changedColumns: Set<String> {
        switch self {
        case .insert, .delete: []
        case let .move(_, _, _, columns), let .update(_, _, _, columns): columns
        }
    }
}

/// One section's insertion, deletion or renaming; the index is against the old state for
/// deletes, and against the new state for inserts and updates.
///
/// An `update` says that a section kept its rows' identity but changed its name: a section is
/// named after its first row, so under `NOCASE` a section of "kappa" and "Kappa" rows is
/// renamed when the other spelling comes first. Redraw its header; its rows get their own
/// changes.
public struct SectionChange: Sendable, Hashable {
    /// Inserted, deleted or renamed (`update`).
    public var type: ChangeType
    /// The section's index: in the old state for a delete, in the new one otherwise.
    public var index: Int
    /// The section's name (its new name for an update).
    public var name: String

    /// A section change as the controller reports it.
    public init(type: ChangeType, index: Int, name: String) {
        self.type = type
        self.index = index
        self.name = name
    }
}

/// The identifiers of the results in order, diffable-data-source style: section names and
/// row ids, plus the ids whose content changed and need reloading.
public struct ResultsSnapshot: Sendable, Equatable {
    /// Each section's name and its rows' ids, in order: listed the first time they are read.
    public var sections: [(name: String, rowIDs: [Int64])] {
        get { source.sections }
        set { source = SnapshotSections(newValue) }
    }
    /// The rows whose content changed in the transaction (to reload, not move).
    public var reloadedRowIDs: Set<Int64>
    private var source: SnapshotSections

    /// The snapshot of `state`, its sections listed only when read.
    init(of state: ResultsState, reloadedRowIDs: Set<Int64>) {
        source = SnapshotSections(deferring: state)
        self.reloadedRowIDs = reloadedRowIDs
    }

    /// The section names, in order.
    public var sectionNames: [String] { sections.map(\.name) }
    /// Every row id, section after section.
    public var rowIDs: [Int64] { sections.flatMap(\.rowIDs) }

    /// Equal names, row ids and reloaded ids.
    public static func == (lhs: ResultsSnapshot, rhs: ResultsSnapshot) -> Bool {
        lhs.sectionNames == rhs.sectionNames && lhs.sections.map(\.rowIDs) == rhs.sections.map(\.rowIDs)
            && lhs.reloadedRowIDs == rhs.reloadedRowIDs
    }
}

/// One section of the fetched results (Core Data's `NSFetchedResultsSectionInfo`).
public struct SectionInfo<Record> {
    /// The section key's value, as text ("" for NULL).
    public let name: String
    /// The title shown in a section index, from
    /// the controller's `sectionIndexTitle(forSectionName:)`.
    public let indexTitle: String?
    /// The objects of this section, in order.
    public let objects: [Record]

    /// How many objects the section holds.
    public var numberOfObjects: Int { objects.count }

    package init(name: String, indexTitle: String?, objects: [Record]) {
        self.name = name
        self.indexTitle = indexTitle
        self.objects = objects
    }
}

extension SectionInfo: Sendable where Record: Sendable {}

/// Where a controller's ordering came from at its last fetch.
public enum FetchSource: Sendable, Equatable {
    /// One ordered query over the whole table.
    case store
    /// The persistent cache file, brought up to date from the store's change history.
    case cache
}
