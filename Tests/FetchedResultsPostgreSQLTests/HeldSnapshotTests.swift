import FetchedResults
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// A snapshot is a value: one kept while the results go on changing still lists them as
    /// they were when it was delivered, however late it is read.
    @Suite struct HeldSnapshotTests {
        /// Keeps every snapshot it is handed, unread.
        final class SnapshotKeeper: FetchedResultsControllerDelegate {
            var snapshots: [ResultsSnapshot] = []
            var errors: [any Error] = []
            func controller(_ controller: FetchedResultsController<Todo>, didFailWith error: any Error) {
                errors.append(error)
            }
            func controller(
                _ controller: FetchedResultsController<Todo>, didChangeContentWith snapshot: ResultsSnapshot
            ) {
                snapshots.append(snapshot)
            }
        }

        @Test(arguments: StoreKind.allCases)
        func aSnapshotReadAfterLaterChangesListsTheResultsItWasDeliveredWith(_ kind: StoreKind) throws {
            let seed = randomisedTestSeed(20261128, for: "HeldSnapshotTests[\(kind)]")
            var random = SplitMix64(seed: seed)
            let table = try TodoTable(kind)
            try table.insertTasks(40, projects: 4)
            let controller = table.controller()
            let keeper = SnapshotKeeper()
            controller.controller.delegate = keeper
            try controller.controller.performFetch()
            // What a fresh fetch showed after each change set: the oracle for its snapshot.
            var expected: [(names: [String], rowIDs: [[Int64]])] = []
            var nextID = 41
            for _ in 0..<80 {
                let id = random.next() % 40 + 1
                let sql =
                    switch random.next() % 4 {
                    case 0: "UPDATE todo SET rank = \(random.next() % 500) WHERE id = \(id)"
                    case 1: "UPDATE todo SET project = 'p\(random.next() % 6)' WHERE id = \(id)"
                    case 2: "DELETE FROM todo WHERE id = \(id)"
                    default:
                        "INSERT INTO todo VALUES (\(nextID), 'p\(random.next() % 6)', 'task', \(random.next() % 500))"
                    }
                nextID += 1
                let delivered = keeper.snapshots.count
                try controller.write(sql)
                guard keeper.snapshots.count > delivered else { continue }
                try #require(keeper.snapshots.count == delivered + 1, "one snapshot per change set")
                let fresh = try table.fresh()
                expected.append((fresh.map { $0[0].project }, fresh.map { $0.map(\.id) }))
            }
            try #require(expected.count > 40, "most writes changed the results")
            #expect(keeper.errors.isEmpty)
            for (index, (snapshot, oracle)) in zip(keeper.snapshots, expected).enumerated() {
                #expect(snapshot.sectionNames == oracle.names, "snapshot \(index)")
                #expect(snapshot.sections.map(\.rowIDs) == oracle.rowIDs, "snapshot \(index)")
            }
        }
    }
}
