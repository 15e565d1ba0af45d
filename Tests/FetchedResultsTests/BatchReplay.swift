import FetchedResults
import Testing

/// Applies one batch of callbacks to a mirror of the old state the way a table view applies
/// batch updates, checking the table-view rules on the way. The caller compares the result with
/// the new state.
///
/// Rules: deletes, move sources and updates address the old state; inserts and move
/// destinations the new state; no `from == to` move; at most one change per object; no row
/// operation inside an inserted or deleted section. An inserted section's rows come from the
/// new state, as a table view asks its data source for them.
func replay<Content>(_ batch: Recorder.Batch, onto old: SectionedState<Content>, new: SectionedState<Content>) -> (SectionedState<Content>, [String]) {
    var problems: [String] = []
    var seen: Set<Int64> = []
    let deletedSections = Set(batch.sections.filter { $0.type == .delete }.map(\.index))
    let insertedSections = Set(batch.sections.filter { $0.type == .insert }.map(\.index))

    // The one allowed pair: a delete and an insert at the same path stand for a move that a
    // table view could not take as a move.
    let deletePaths = Dictionary(batch.objects.filter { $0.type == .delete }.map { ($0.rowID, $0.indexPath) }) { a, _ in a }
    for change in batch.objects {
        let isSamePathReinsert = change.type == .insert && deletePaths[change.rowID].map { $0 == change.newIndexPath } == true
        if !seen.insert(change.rowID).inserted && !isSamePathReinsert { problems.append("two changes for row \(change.rowID)") }
        if let from = change.indexPath {
            if deletedSections.contains(from.section) { problems.append("\(change.type) inside deleted section \(from)") }
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
                && new.sections[to.section].ids[to.row] == change.rowID) {
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
        sections.append((section.name, section.ids.enumerated().filter { !removed.contains(IndexPath(row: $0.offset, section: index)) }.map(\.element)))
    }
    // Insertions against the new state, in ascending order.
    for index in insertedSections.sorted() where index <= sections.count && index < new.sections.count {
        sections.insert(new.sections[index], at: index)
    }
    // Renamed sections (same rows' identity, a new first row spelling it otherwise) in the new state.
    for change in batch.sections where change.type == .update {
        if sections.indices.contains(change.index) { sections[change.index].name = change.name } else {
            problems.append("section update at \(change.index) out of range")
        }
    }
    let inserted = batch.objects.filter { $0.type == .insert || $0.type == .move }.sorted { $0.newIndexPath! < $1.newIndexPath! }
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
