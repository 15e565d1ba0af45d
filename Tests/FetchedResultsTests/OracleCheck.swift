import FetchedResults
import GRDB
import TestSupport
import Testing

/// The checks the randomised tests make after every step: the controller equals a fresh fetch,
/// and every callback style turns the old state into exactly the new one.
///
/// - Parameters:
///   - controllerState: what the controller now holds.
///   - rolledBack: whether everything the step wrote was rolled back.
///   - batched: whether the request has a batch size (then a row written while not loaded may
///     be reported as updated although nothing visible changed).
/// - Returns: whether the step changed the results (and so had callbacks).
func checkStep<Content: Equatable>(
    _ recorder: Recorder, old: SectionedState<Content>, new: SectionedState<Content>,
    controllerState: SectionedState<Content>, rolledBack: Bool, batched: Bool, context: String
) throws -> Bool {
    // (1) The controller equals SQLite's own order.
    try #require(controllerState == new, "\(context): controller \(controllerState) ≠ fetch \(new)")

    if rolledBack || (old == new && !batched) {
        // Nothing visible changed (or the work was rolled back): no callback at all.
        try #require(recorder.batches.isEmpty && recorder.snapshots.isEmpty, "\(context): callbacks without a visible change")
        return false
    }
    if old == new {
        // With batches, a row written without change whose old values were not loaded is
        // reported as updated; nothing else may be reported.
        let changes = recorder.batches.flatMap(\.objects)
        try #require(recorder.batches.allSatisfy(\.sections.isEmpty) && changes.allSatisfy { $0.type == .update },
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
        try #require(replayed.sections.map(\.ids) == new.sections.map(\.ids) && replayed.sections.map(\.name) == new.sections.map(\.name),
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
    let difference = try #require(recorder.differences.first)
    #expect(old.flatIDs.applying(difference) == new.flatIDs, "\(context)")
    return true
}

/// The randomised tests' loop: `steps` times, commits a random transaction through `writer`
/// (``TransactionWriter/commitStep(_:pruneEvery:random:transaction:poll:)``), takes the new state
/// from `oracle`, and checks the controller and its callbacks with ``checkStep``. Returns how
/// many steps changed the results.
func runCheckedSteps<Record: FetchableRecord & Sendable & Equatable>(
    _ steps: Int, controller: FetchedResultsController<Record>, recorder: Recorder, writer: TransactionWriter,
    pruneEvery: Int, seed: UInt64, random: inout SplitMix64, id: (Record) -> Int64,
    transaction: (inout SplitMix64) throws -> RandomTransaction, oracle: () throws -> SectionedState<Record>
) throws -> Int {
    var state = try oracle()
    var stepsWithCallbacks = 0
    for step in 0..<steps {
        recorder.reset()
        let rolledBack = try writer.commitStep(step, pruneEvery: pruneEvery, random: &random, transaction: transaction,
                                               poll: { try controller.processExternalChanges() })
        let newState = try oracle()
        let controllerState = SectionedState(
            sections: controller.sections!.map { ($0.name, $0.objects.map(id)) },
            content: Dictionary(uniqueKeysWithValues: controller.fetchedObjects!.map { (id($0), $0) }))
        if try checkStep(recorder, old: state, new: newState, controllerState: controllerState, rolledBack: rolledBack,
                         batched: controller.fetchRequest.fetchBatchSize > 0, context: "seed \(seed), step \(step)") {
            stepsWithCallbacks += 1
        }
        state = newState
    }
    return stepsWithCallbacks
}
