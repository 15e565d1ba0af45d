import FetchedResults
import Testing

// The randomised oracle's checks, shared by the SQLite and PostgreSQL controllers' tests.

/// Every callback a controller delivered, batch by batch, whichever store it follows: what the
/// delegates below record.
open class CallbackRecords {
    public struct Batch: CustomStringConvertible {
        public var sections: [SectionChange] = []
        public var objects: [ObjectChange] = []
        public var closed = false
        public var description: String { "sections \(sections) objects \(objects)" }
    }
    public var batches: [Batch] = []
    public var snapshots: [ResultsSnapshot] = []
    public var differences: [CollectionDifference<Int64>] = []
    public var errors: [any Error] = []
    public var connectionStates: [ConnectionState] = []

    public init() {}

    public func beginBatch() { batches.append(Batch()) }
    public func record(_ section: SectionChange) { batches[batches.count - 1].sections.append(section) }
    public func record(_ object: ObjectChange) { batches[batches.count - 1].objects.append(object) }
    public func endBatch() { batches[batches.count - 1].closed = true }
    public func reset() { batches = []; snapshots = []; differences = []; errors = [] }
}

/// A delegate implementing every callback style, recording each.
open class CallbackLog<Record>: CallbackRecords, FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Record>) { beginBatch() }
    public func controller(_ controller: FetchedResultsController<Record>, didChange section: SectionChange) {
        record(section)
    }
    public func controller(_ controller: FetchedResultsController<Record>, didChange object: ObjectChange) {
        record(object)
    }
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Record>) { endBatch() }
    public func controller(
        _ controller: FetchedResultsController<Record>, didChangeContentWith snapshot: ResultsSnapshot
    ) {
        snapshots.append(snapshot)
    }
    public func controller(
        _ controller: FetchedResultsController<Record>,
        didChangeContentWith difference: CollectionDifference<Int64>
    ) {
        differences.append(difference)
    }
    public func controller(
        _ controller: FetchedResultsController<Record>, didChangeConnectionState state: ConnectionState
    ) {
        connectionStates.append(state)
    }
    public func controller(_ controller: FetchedResultsController<Record>, didFailWith error: any Error) {
        errors.append(error)
    }
}

/// A delegate implementing the per-change and snapshot callbacks but no `CollectionDifference`
/// one: the controller then computes no flat difference, and may take the shortcuts that
/// allows.
public final class CallbackLogWithoutDifference<Record>: CallbackRecords, FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Record>) { beginBatch() }
    public func controller(_ controller: FetchedResultsController<Record>, didChange section: SectionChange) {
        record(section)
    }
    public func controller(_ controller: FetchedResultsController<Record>, didChange object: ObjectChange) {
        record(object)
    }
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Record>) { endBatch() }
    public func controller(
        _ controller: FetchedResultsController<Record>, didChangeContentWith snapshot: ResultsSnapshot
    ) {
        snapshots.append(snapshot)
    }
    public func controller(_ controller: FetchedResultsController<Record>, didFailWith error: any Error) {
        errors.append(error)
    }
}

/// The results as the database itself orders them: the independent oracle.
public struct SectionedState<Content: Equatable>: Equatable, CustomStringConvertible {
    public var sections: [(name: String, ids: [Int64])]
    public var content: [Int64: Content]

    public var flatIDs: [Int64] { sections.flatMap(\.ids) }

    public static func == (lhs: SectionedState, rhs: SectionedState) -> Bool {
        lhs.sections.map(\.ids) == rhs.sections.map(\.ids)
            && lhs.sections.map(\.name) == rhs.sections.map(\.name)
            && lhs.content == rhs.content
    }

    public var description: String {
        sections.map { "\($0.name): \($0.ids)" }.joined(separator: " | ")
    }

    /// Groups rows, already in order, into sections of consecutive rows whose section value is
    /// equal ignoring ASCII case (as NOCASE compares), each named after its first row; one
    /// unnamed section when not sectioned, even with no rows.
    public init(ordered rows: [(id: Int64, section: String?, content: Content)], sectioned: Bool) {
        var sections: [(name: String, ids: [Int64])] = []
        var lastKey: String??
        for row in rows {
            let key: String? = row.section.map { String($0.map { $0.isASCII ? Character($0.lowercased()) : $0 }) }
            if sectioned, lastKey == .some(key) {
                sections[sections.count - 1].ids.append(row.id)
            } else if !sectioned, !sections.isEmpty {
                sections[0].ids.append(row.id)
            } else {
                sections.append((sectioned ? (row.section ?? "") : "", [row.id]))
                lastKey = .some(key)
            }
        }
        // Unsectioned results are one section, even empty.
        if !sectioned, sections.isEmpty { sections = [("", [])] }
        self.init(sections: sections, content: Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.content) }))
    }

    public init(sections: [(name: String, ids: [Int64])], content: [Int64: Content]) {
        self.sections = sections
        self.content = content
    }
}

/// Applies one batch of callbacks to a mirror of the old state the way a table view applies
/// batch updates, checking the table-view rules on the way. The caller compares the result with
/// the new state.
///
/// Rules: deletes, move sources and updates address the old state; inserts and move
/// destinations the new state; no `from == to` move; at most one change per object; no row
/// operation inside an inserted or deleted section. An inserted section's rows come from the
/// new state, as a table view asks its data source for them.
public func replay<Content>(
    _ batch: CallbackRecords.Batch, onto old: SectionedState<Content>, new: SectionedState<Content>
) -> (SectionedState<Content>, [String]) {
    var problems: [String] = []
    var seen: Set<Int64> = []
    let deletedSections = Set(batch.sections.filter { $0.type == .delete }.map(\.index))
    let insertedSections = Set(batch.sections.filter { $0.type == .insert }.map(\.index))

    // The one allowed pair: a delete and an insert at the same path stand for a move that a
    // table view could not take as a move.
    let deletePaths = Dictionary(batch.objects.filter { $0.type == .delete }.map { ($0.rowID, $0.indexPath) }) { a, _ in
        a
    }
    for change in batch.objects {
        let isSamePathReinsert =
            change.type == .insert && deletePaths[change.rowID].map { $0 == change.newIndexPath } == true
        if !seen.insert(change.rowID).inserted && !isSamePathReinsert {
            problems.append("two changes for row \(change.rowID)")
        }
        if let from = change.indexPath {
            if deletedSections.contains(from.section) {
                problems.append("\(change.type) inside deleted section \(from)")
            }
            if old.sections.indices.contains(from.section), old.sections[from.section].ids.indices.contains(from.row) {
                if old.sections[from.section].ids[from.row] != change.rowID {
                    problems.append("\(change.type) old path \(from) is not row \(change.rowID)")
                }
            } else {
                problems.append("\(change.type) old path \(from) out of range")
            }
        }
        if let to = change.newIndexPath {
            if insertedSections.contains(to.section) { problems.append("\(change.type) inside inserted section \(to)") }
            if !(new.sections.indices.contains(to.section) && new.sections[to.section].ids.indices.contains(to.row)
                && new.sections[to.section].ids[to.row] == change.rowID)
            {
                problems.append("\(change.type) new path \(to) is not row \(change.rowID)")
            }
        }
        switch change.type {
        case .insert where change.indexPath != nil || change.newIndexPath == nil,
            .delete where change.indexPath == nil || change.newIndexPath != nil,
            .move where change.indexPath == nil || change.newIndexPath == nil,
            .update where change.indexPath == nil || change.newIndexPath == nil:
            problems.append("\(change.type) with wrong paths")
        case .move where change.indexPath == change.newIndexPath:
            problems.append("move from == to \(String(describing: change.indexPath))")
        default: break
        }
    }

    // Removals against the old state.
    let removed = Set(batch.objects.filter { $0.type == .delete || $0.type == .move }.compactMap(\.indexPath))
    var sections: [(name: String, ids: [Int64])] = []
    for (index, section) in old.sections.enumerated() where !deletedSections.contains(index) {
        sections.append(
            (
                section.name,
                section.ids.enumerated().filter { !removed.contains(IndexPath(row: $0.offset, section: index)) }.map(
                    \.element)
            ))
    }
    // Insertions against the new state, in ascending order.
    for index in insertedSections.sorted() where index <= sections.count && index < new.sections.count {
        sections.insert(new.sections[index], at: index)
    }
    // Renamed sections (same rows' identity, a new first row spelling it otherwise) in the new state.
    for change in batch.sections where change.type == .update {
        if sections.indices.contains(change.index) {
            sections[change.index].name = change.name
        } else {
            problems.append("section update at \(change.index) out of range")
        }
    }
    let inserted = batch.objects.filter { $0.type == .insert || $0.type == .move }.sorted {
        $0.newIndexPath! < $1.newIndexPath!
    }
    for change in inserted {
        let to = change.newIndexPath!
        guard sections.indices.contains(to.section), to.row <= sections[to.section].ids.count else {
            problems.append("insert at \(to) out of range")
            continue
        }
        sections[to.section].ids.insert(change.rowID, at: to.row)
    }
    // Content: what the view shows is the old content unless a change made it reload.
    var content = old.content
    for id in old.content.keys where !new.content.keys.contains(id) { content[id] = nil }
    for change in batch.objects where change.type != .delete { content[change.rowID] = new.content[change.rowID] }
    for index in insertedSections where index < new.sections.count {
        for id in new.sections[index].ids { content[id] = new.content[id] }
    }
    for section in sections { for id in section.ids where content[id] == nil { content[id] = new.content[id] } }
    return (SectionedState(sections: sections, content: content), problems)
}

/// The checks the randomised tests make after every step: the controller equals a fresh fetch,
/// and every callback style turns the old state into exactly the new one.
///
/// - Parameters:
///   - controllerState: what the controller now holds.
///   - rolledBack: whether everything the step wrote was rolled back.
///   - batched: whether the request has a batch size (then a row written while not loaded may
///     be reported as updated although nothing visible changed).
///   - withDifference: whether the delegate implements the `CollectionDifference` callback
///     (without it, a controller may take shortcuts that only the other styles must survive).
/// - Returns: whether the step changed the results (and so had callbacks).
public func checkStep<Content: Equatable>(
    _ recorder: CallbackRecords, old: SectionedState<Content>, new: SectionedState<Content>,
    controllerState: SectionedState<Content>, rolledBack: Bool, batched: Bool, context: String,
    withDifference: Bool = true
) throws -> Bool {
    // (1) The controller equals SQLite's own order.
    try #require(controllerState == new, "\(context): controller \(controllerState) ≠ fetch \(new)")

    if rolledBack || (old == new && !batched) {
        // Nothing visible changed (or the work was rolled back): no callback at all.
        try #require(
            recorder.batches.isEmpty && recorder.snapshots.isEmpty, "\(context): callbacks without a visible change")
        return false
    }
    if old == new {
        // With batches, a row written without change whose old values were not loaded is
        // reported as updated; nothing else may be reported.
        let changes = recorder.batches.flatMap(\.objects)
        try #require(
            recorder.batches.allSatisfy(\.sections.isEmpty) && changes.allSatisfy { $0.type == .update },
            "\(context): only updates without a visible change")
        return false
    }
    // (2) Per-object callbacks replay onto the old state.
    try #require(recorder.batches.count == 1 && recorder.batches[0].closed, "\(context): one closed batch")
    let (replayed, problems) = replay(recorder.batches[0], onto: old, new: new)
    try #require(problems.isEmpty, "\(context): \(problems) batch \(recorder.batches[0].objects)")
    if batched {
        // With batches, a refetch (after pruned history) can compare only the rows it holds: a
        // row not loaded whose place did not change is read afresh when next asked for, not
        // reported. Its content was checked against the fetch in (1).
        try #require(
            replayed.sections.map(\.ids) == new.sections.map(\.ids)
                && replayed.sections.map(\.name) == new.sections.map(\.name),
            "\(context): replayed \(replayed) ≠ \(new); batch \(recorder.batches[0])")
    } else {
        try #require(replayed == new, "\(context): replayed \(replayed) ≠ \(new); batch \(recorder.batches[0])")
    }
    // (3) The snapshot is the new state, and reloads every object whose content changed.
    let snapshot = try #require(recorder.snapshots.first)
    #expect(snapshot.sections.map(\.rowIDs) == new.sections.map(\.ids), "\(context)")
    let changedContent = Set(new.content.keys.filter { old.content[$0] != nil && old.content[$0] != new.content[$0] })
    if !batched {
        // (With batches, as in (2), rows not loaded are read afresh, not reloaded.)
        #expect(snapshot.reloadedRowIDs == changedContent, "\(context)")
    }
    // (4) The difference turns the old flat list into the new one.
    guard withDifference else {
        #expect(recorder.differences.isEmpty, "\(context): a difference nobody asked for")
        return true
    }
    let difference = try #require(recorder.differences.first)
    #expect(old.flatIDs.applying(difference) == new.flatIDs, "\(context)")
    return true
}
