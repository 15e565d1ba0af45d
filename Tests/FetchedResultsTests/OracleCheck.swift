import ControllerOracles
import FetchedResultsSQLite
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

/// The randomised tests' loop: `steps` times, commits a random transaction through `writer`
/// (``TransactionWriter/commitStep(_:pruneEvery:random:transaction:poll:)``), takes the new state
/// from `oracle`, and checks the controller and its callbacks with ``checkStep``. Returns how
/// many steps changed the results.
func runCheckedSteps<Record: FetchableRecord & Sendable & Equatable>(
    _ steps: Int, controller: FetchedResultsController<Record>, recorder: CallbackRecords, writer: TransactionWriter,
    pruneEvery: Int, seed: UInt64, random: inout SplitMix64, id: (Record) -> Int64,
    transaction: (inout SplitMix64) throws -> RandomTransaction, oracle: () throws -> SectionedState<Record>
) throws -> Int {
    writer.controllerWrite = { body in try controller.write(body) }
    var state = try oracle()
    var stepsWithCallbacks = 0
    for step in 0..<steps {
        recorder.reset()
        let rolledBack = try writer.commitStep(
            step, pruneEvery: pruneEvery, random: &random, transaction: transaction,
            poll: { try controller.processPendingChanges() })
        let newState = try oracle()
        let controllerState = SectionedState(
            sections: try controller.sections!.map { ($0.name, $0.objects.map(id)) },
            content: Dictionary(uniqueKeysWithValues: try controller.fetchedObjects!.map { (id($0), $0) }))
        if try checkStep(
            recorder, old: state, new: newState, controllerState: controllerState, rolledBack: rolledBack,
            batched: controller.fetchRequest.fetchBatchSize > 0, context: "seed \(seed), step \(step)")
        {
            stepsWithCallbacks += 1
        }
        state = newState
    }
    return stepsWithCallbacks
}
