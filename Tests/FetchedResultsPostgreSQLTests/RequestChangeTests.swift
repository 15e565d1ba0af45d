import ControllerOracles
import FetchedResults
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// A live controller's request changes — a search box's predicate, a sort switch — and the
    /// move from the old results to the new is one change set that a table view can apply.
    @Suite struct RequestChangeTests {
        static let predicates: [String?] = [
            nil, "rank > 200", "project <> 'p1'", "title LIKE '%1%'", "rank % 2 = 0 AND project <> 'p0'",
        ]
        static let orders: [[ColumnSortDescriptor]] = [
            [.ascending("project"), .ascending("rank"), .ascending("title")],
            [.ascending("project"), .descending("rank"), .ascending("title")],
            [.ascending("project"), .ascending("title")],
            [.ascending("project"), .descending("title"), .ascending("rank")],
        ]

        /// The controller's results in the oracle's shape.
        static func state(of controller: FetchedResultsController<Todo>) throws -> SectionedState<Todo> {
            state(try (controller.sections ?? []).map(\.objects))
        }

        static func state(_ sections: [[Todo]]) -> SectionedState<Todo> {
            SectionedState(
                sections: sections.map { ($0.first?.project ?? "", $0.map(\.id)) },
                content: Dictionary(uniqueKeysWithValues: sections.joined().map { ($0.id, $0) }))
        }

        @Test(arguments: StoreKind.allCases, [0, 7])
        func aNewRequestArrivesAsOneChangeSetFromTheOldResults(_ kind: StoreKind, batchSize: Int) throws {
            let seed = randomisedTestSeed(20261127, for: "RequestChangeTests[\(kind), batch \(batchSize)]")
            var random = SplitMix64(seed: seed)
            let table = try TodoTable(kind)
            try table.insertTasks(60, projects: 4)
            let controller = table.controller(batchSize: batchSize).controller
            let log = CallbackLog<Todo>()
            controller.delegate = log
            try controller.performFetch()
            var before = try Self.state(of: controller)
            var last: (predicate: String?, order: [ColumnSortDescriptor]) = (nil, Self.orders[0])
            for step in 0..<30 {
                // Now and then a commit nobody has looked at yet: the change set includes it.
                if random.next() % 3 == 0 {
                    let id = Int(random.next() % 60) + 1
                    try table.execute(
                        "UPDATE todo SET rank = \(random.next() % 700), title = 'task \(id)!' WHERE id = \(id)")
                }
                let predicate = Self.predicates[Int(random.next() % UInt64(Self.predicates.count))]
                let order = Self.orders[Int(random.next() % UInt64(Self.orders.count))]
                log.reset()
                try controller.setFetchRequest(
                    table.request(predicate: predicate, sortDescriptors: order, batchSize: batchSize))
                let after = Self.state(try table.fresh(predicate: predicate, sortDescriptors: order))
                _ = try checkStep(
                    log, old: before, new: after, controllerState: try Self.state(of: controller), rolledBack: false,
                    batched: batchSize > 0, context: "seed \(seed), step \(step), \(predicate ?? "all"), \(order)")
                #expect(log.errors.isEmpty)
                before = after
                last = (predicate, order)
            }
            // Tracking goes on under the new request.
            log.reset()
            try table.execute("DELETE FROM todo WHERE id IN (SELECT id FROM todo ORDER BY id LIMIT 5)")
            #expect(try controller.processPendingChanges())
            let fresh = Self.state(try table.fresh(predicate: last.predicate, sortDescriptors: last.order))
            #expect(try Self.state(of: controller) == fresh)
        }

        @Test(arguments: StoreKind.allCases)
        func aRequestTheControllerCannotFollowLeavesTheOldOne(_ kind: StoreKind) throws {
            let table = try TodoTable(kind)
            try table.insertTasks(6)
            let controller = table.controller().controller
            let log = CallbackLog<Todo>()
            controller.delegate = log
            try controller.performFetch()
            let before = try Self.state(of: controller)
            // Sections by project need the first sort descriptor to sort by project.
            #expect(throws: FetchedResultsError.self) {
                try controller.setFetchRequest(table.request(sortDescriptors: [.ascending("rank")]))
            }
            #expect(controller.fetchRequest.sortDescriptors.first?.key == "project")
            #expect(try Self.state(of: controller) == before)
            #expect(log.batches.isEmpty)
            try table.execute("UPDATE todo SET rank = 0 WHERE id = 6")
            #expect(try controller.processPendingChanges())
        }
    }
}
