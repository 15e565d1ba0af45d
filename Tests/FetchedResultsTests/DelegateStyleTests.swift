import FetchedResultsSQLite
import GRDB
import SQLiteFixtures
import Testing

@testable import FetchedResults

/// A delegate gets the callback styles it implements, and the controller stops computing the
/// others once a change set has shown which those are.
@Suite struct DelegateStyleTests {
    /// Implements the per-change callbacks only, as most table views do.
    final class PerChangeDelegate: FetchedResultsControllerDelegate {
        var objectChanges = 0
        func controller(_ controller: FetchedResultsController<Item>, didChange object: ObjectChange) {
            objectChanges += 1
        }
        func controller(_ controller: FetchedResultsController<Item>, didFailWith error: any Error) {}
    }

    @Test func aPerChangeDelegateStopsTheSnapshotAndTheDifferenceAfterItsFirstChangeSet() throws {
        let (pool, _) = try makeItemDatabase(history: true)
        let request = TableFetchRequest(
            table: "item", sortDescriptors: [.ascending("name"), .ascending("id")])
        let controller = FetchedResultsController<Item>(fetchRequest: request, database: pool)
        let delegate = PerChangeDelegate()
        controller.delegate = delegate
        try controller.performFetch()
        let core = try #require(controller.core as? ControllerCore<Item, SQLiteStore>)
        #expect(core.wantsFlatDifference, "before its first change set the delegate may want anything")
        for name in ["b", "a", "c"] {
            try controller.write { db in
                try db.execute(sql: "INSERT INTO item (name, note, visible) VALUES (?, '', 1)", arguments: [name])
            }
        }
        #expect(delegate.objectChanges == 3)
        #expect(core.delegateStyles.snapshot == false)
        #expect(core.delegateStyles.difference == false)
        #expect(!core.wantsFlatDifference)
    }
}
