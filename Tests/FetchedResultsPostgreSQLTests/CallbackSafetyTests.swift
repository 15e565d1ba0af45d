import FetchedResults
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// What a table view does inside the callbacks — reads the rows it shows, batches not yet
    /// loaded included, and the app's own reads — works on every store, in every callback of
    /// every style; a write from inside a callback is an error, never a trap.
    @Suite struct CallbackSafetyTests {
        /// A delegate that reads, inside every callback, everything the controller holds and
        /// the table through the app's own connection.
        final class ReadingDelegate: FetchedResultsControllerDelegate {
            let table: TodoTable
            let controller: TodoController
            /// What every callback read, with the callback's name.
            var reads: [(callback: String, sections: [[Todo]])] = []
            var errors: [any Error] = []

            init(_ table: TodoTable, _ controller: TodoController) {
                self.table = table
                self.controller = controller
            }

            func read(_ callback: String) {
                do {
                    reads.append((callback, try controller.sections()))
                    _ = try table.countRows()
                } catch {
                    errors.append(error)
                }
            }

            func controllerWillChangeContent(_ controller: FetchedResultsController<Todo>) { read("will") }
            func controller(_ controller: FetchedResultsController<Todo>, didChange section: SectionChange) {
                read("section")
            }
            func controller(_ controller: FetchedResultsController<Todo>, didChange object: ObjectChange) {
                read("object")
            }
            func controllerDidChangeContent(_ controller: FetchedResultsController<Todo>) { read("did") }
            func controller(
                _ controller: FetchedResultsController<Todo>, didChangeContentWith snapshot: ResultsSnapshot
            ) { read("snapshot") }
            func controller(
                _ controller: FetchedResultsController<Todo>,
                didChangeContentWith difference: CollectionDifference<Int64>
            ) { read("difference") }
            func controller(_ controller: FetchedResultsController<Todo>, didFailWith error: any Error) {
                errors.append(error)
            }
        }

        @Test(arguments: StoreKind.allCases, [0, 20])
        func everyCallbackReadsTheNewResults(_ kind: StoreKind, batchSize: Int) throws {
            let table = try TodoTable(kind)
            try table.insertTasks(100)
            let controller = table.controller(batchSize: batchSize)
            let delegate = ReadingDelegate(table, controller)
            controller.controller.delegate = delegate
            try controller.controller.performFetch()

            // Others' writes, then one look; then writes through the controller: a multi-row
            // update touching more rows than a batch holds, a new section, a section emptied.
            let steps: [(String, Bool)] = [
                ("UPDATE todo SET rank = rank + 1000 WHERE id % 3 = 0", false),
                ("UPDATE todo SET project = 'p9', title = title || '!' WHERE id <= 40", true),
                ("INSERT INTO todo (id, project, title, rank) VALUES (500, 'a', 'first', 1)", false),
                ("DELETE FROM todo WHERE project = 'p1'", true),
            ]
            for (sql, throughController) in steps {
                delegate.reads = []
                if throughController {
                    try controller.write(sql)
                } else {
                    try table.execute(sql)
                    try controller.controller.processPendingChanges()
                }
                let fresh = try table.fresh()
                #expect(delegate.errors.isEmpty, "\(sql): \(delegate.errors)")
                #expect(!delegate.reads.isEmpty, "\(sql): callbacks")
                for read in delegate.reads {
                    #expect(read.sections == fresh, "\(sql): \(read.callback) reads the new results")
                }
                #expect(try controller.sections() == fresh, "\(sql)")
            }
        }

        /// A delegate that writes through the controller when a change set arrives.
        final class WritingDelegate: FetchedResultsControllerDelegate {
            let controller: TodoController
            var writeError: (any Error)?
            var callbacks = 0

            init(_ controller: TodoController) { self.controller = controller }

            func controllerDidChangeContent(_ controller: FetchedResultsController<Todo>) {
                callbacks += 1
                do {
                    try self.controller.write("UPDATE todo SET rank = rank + 1 WHERE id = 1")
                } catch {
                    writeError = error
                }
            }
            func controller(_ controller: FetchedResultsController<Todo>, didFailWith error: any Error) {}
        }

        @Test(arguments: StoreKind.allCases)
        func aWriteInsideACallbackIsAnError(_ kind: StoreKind) throws {
            let table = try TodoTable(kind)
            try table.insertTasks(5)
            let controller = table.controller()
            let delegate = WritingDelegate(controller)
            controller.controller.delegate = delegate
            try controller.controller.performFetch()

            try controller.write("UPDATE todo SET rank = 0 WHERE id = 2")
            #expect(delegate.callbacks == 1)
            let error = try #require(delegate.writeError as? FetchedResultsError)
            #expect(error == .calledInsideCallback(method: "write(_:)"))
            // Nothing was written from the callback.
            #expect(try table.fresh().flatMap { $0 }.first { $0.id == 1 }?.rank == 10)
        }
    }
}
