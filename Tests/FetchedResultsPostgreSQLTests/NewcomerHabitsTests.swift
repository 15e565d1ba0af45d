import ControllerOracles
import FetchedResults
import FetchedResultsSQLite
import Foundation
import GRDB
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension PostgreSQLServerTests {
    /// What a developer who knows `NSFetchedResultsController` writes, and expects to work
    /// without reading more than the getting-started articles.
    @Suite struct NewcomerHabitsTests {
        /// Records per-object and section callbacks, and nothing else.
        final class RowDelegate: FetchedResultsControllerDelegate {
            var sections: [SectionChange] = []
            var objects: [ObjectChange] = []
            var errors: [any Error] = []
            func controller(_ controller: FetchedResultsController<Todo>, didChange section: SectionChange) {
                sections.append(section)
            }
            func controller(_ controller: FetchedResultsController<Todo>, didChange object: ObjectChange) {
                objects.append(object)
            }
            func controller(_ controller: FetchedResultsController<Todo>, didFailWith error: any Error) {
                errors.append(error)
            }
        }

        /// An event loop as the getting-started articles show it: wait on the descriptor until the
        /// deadline, then look. Returns how many times `poll` woke in `duration`, and how many
        /// looks changed the results.
        static func runLoop(
            _ controller: FetchedResultsController<Todo>, for duration: Duration
        ) throws -> (
            wakes: Int, changes: Int
        ) {
            let end = ContinuousClock.now + duration
            var wakes = 0, changes = 0
            while ContinuousClock.now < end {
                let deadline = min(controller.nextLookDeadline ?? end, end)
                let timeout = Int32(max(0, (deadline - .now) / .milliseconds(1)))
                var descriptor = pollfd(fd: controller.wakeDescriptor ?? -1, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, timeout) > 0 { wakes += 1 }
                if try controller.processPendingChanges() { changes += 1 }
            }
            return (wakes, changes)
        }

        @Test(arguments: StoreKind.allCases)
        func theDocumentedLoopSleepsAfterAWrite(_ kind: StoreKind) throws {
            let table = try TodoTable(kind)
            try table.insertTasks(3)
            let controller = table.controller().controller
            let delegate = RowDelegate()
            controller.delegate = delegate
            try controller.performFetch()
            try table.execute("UPDATE todo SET rank = 0 WHERE id = 3")
            let (wakes, changes) = try Self.runLoop(controller, for: .milliseconds(500))
            #expect(changes == 1)
            #expect(delegate.objects.count == 1)
            // A write wakes a loop a few times (the write, a short burst of follow-up looks),
            // not thousands.
            #expect(wakes < 50, "poll woke \(wakes) times in half a second after one write")
        }

        @Test(arguments: StoreKind.allCases)
        func aFlatListHasOneSectionEvenEmpty(_ kind: StoreKind) throws {
            let table = try TodoTable(kind)
            let controller = table.controller(sectioned: false).controller
            let delegate = RowDelegate()
            controller.delegate = delegate
            try controller.performFetch()
            try #require(controller.numberOfSections == 1)
            #expect(controller.numberOfObjects(inSection: 0) == 0)
            #expect(try controller.sections?.map(\.name) == [""])

            try table.execute("INSERT INTO todo (id, project, title, rank) VALUES (1, 'p', 'first', 1)")
            try controller.processPendingChanges()
            #expect(delegate.sections.isEmpty)
            #expect(delegate.objects == [.insert(rowID: 1, at: IndexPath(row: 0, section: 0))])

            delegate.objects = []
            try table.execute("DELETE FROM todo")
            try controller.processPendingChanges()
            #expect(delegate.sections.isEmpty)
            #expect(delegate.objects == [.delete(rowID: 1, at: IndexPath(row: 0, section: 0))])
            #expect(controller.numberOfSections == 1)
        }

        /// A delegate of the diffable-data-source kind: the snapshot callback and nothing else.
        final class SnapshotDelegate: FetchedResultsControllerDelegate {
            var snapshots: [ResultsSnapshot] = []
            func controller(
                _ controller: FetchedResultsController<Todo>, didChangeContentWith snapshot: ResultsSnapshot
            ) {
                snapshots.append(snapshot)
            }
            func controller(_ controller: FetchedResultsController<Todo>, didFailWith error: any Error) {}
        }

        @Test(arguments: StoreKind.allCases)
        func aSnapshotDelegateHearsSnapshotsWithoutSayingSo(_ kind: StoreKind) throws {
            let table = try TodoTable(kind)
            try table.insertTasks(4, projects: 2)
            let todos = table.controller()
            let delegate = SnapshotDelegate()
            todos.controller.delegate = delegate
            try todos.controller.performFetch()
            try todos.write("UPDATE todo SET rank = 100 WHERE id = 2")
            let snapshot = try #require(delegate.snapshots.last)
            #expect(snapshot.sections.map(\.name) == ["p0", "p1"])
            #expect(snapshot.sections.map(\.rowIDs) == [[4, 2], [1, 3]])
        }

        @Test(arguments: StoreKind.allCases)
        func aDelegateSetAfterTheFetchHearsTheNextChanges(_ kind: StoreKind) throws {
            let table = try TodoTable(kind)
            try table.insertTasks(6, projects: 2)
            let controller = table.controller().controller
            try controller.performFetch()
            let delegate = CallbackLog<Todo>()
            controller.delegate = delegate
            // Committed before the look that starts tracking: still reported, as the change
            // from the fetched results.
            var before = try table.fresh()
            try table.execute("UPDATE todo SET rank = 0 WHERE id = 6")
            #expect(try controller.processPendingChanges())
            var after = try table.fresh()
            #expect(try controller.sections?.map(\.objects) == after)
            #expect(Self.replayed(delegate, before, after) == after.map { $0.map(\.id) })

            delegate.reset()
            before = after
            try table.execute("DELETE FROM todo WHERE id = 1")
            #expect(try controller.processPendingChanges())
            after = try table.fresh()
            #expect(try controller.sections?.map(\.objects) == after)
            #expect(Self.replayed(delegate, before, after) == after.map { $0.map(\.id) })
            #expect(delegate.errors.isEmpty)
        }

        /// The ids of `before` with the delegate's one batch applied, as a table view applies it.
        static func replayed(_ log: CallbackLog<Todo>, _ before: [[Todo]], _ after: [[Todo]]) -> [[Int64]]? {
            guard log.batches.count == 1 else { return nil }
            func state(_ sections: [[Todo]]) -> SectionedState<Todo> {
                SectionedState(
                    sections: sections.map { ($0.first?.project ?? "", $0.map(\.id)) },
                    content: Dictionary(uniqueKeysWithValues: sections.joined().map { ($0.id, $0) }))
            }
            let (replayed, problems) = replay(log.batches[0], onto: state(before), new: state(after))
            return problems.isEmpty ? replayed.sections.map(\.ids) : nil
        }

        @Test(arguments: StoreKind.allCases)
        func followingATableWithoutItsChangeFeedIsRefused(_ kind: StoreKind) throws {
            let table = try TodoTable(kind, feed: false)
            try table.insertTasks(2)
            let controller = table.controller().controller
            let delegate = RowDelegate()
            controller.delegate = delegate
            let error = try #require(throws: FetchedResultsError.self) { try controller.performFetch() }
            guard case let .changeFeedMissing(name, installation) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(name == "todo")
            #expect(installation.contains("install(on: \"todo\""))
            // Without a delegate nothing is followed, and the fetch is fine.
            controller.delegate = nil
            try controller.performFetch()
            #expect(controller.numberOfSections == 2)
        }

        @Test(arguments: StoreKind.allCases)
        func aCacheWithoutTheChangeFeedIsAnError(_ kind: StoreKind) throws {
            let table = try TodoTable(kind, feed: false)
            try table.insertTasks(2)
            let controller = table.cachedController(name: "todos")
            try controller.performFetch()
            #expect(throws: FetchedResultsError.self) { try controller.saveCache() }
        }
    }
}

extension PostgreSQLServerTests.NewcomerHabitsTests {
    /// Sort keys and the section key by typed names (a record's `CodingKeys`, GRDB's `Column`)
    /// give exactly what the same names as strings give.
    @Test(arguments: StoreKind.allCases)
    func typedColumnNamesFetchWhatStringsFetch(_ kind: StoreKind) throws {
        let table = try TodoTable(kind)
        try table.insertTasks(12, projects: 3)
        typealias Columns = Todo.Columns
        var typed = table.request()
        typed.sortDescriptors = [.ascending(Columns.project), .descending(Columns.rank), .ascending(Columns.title)]
        let byName = table.controller(request: typed, sectionNameKeyPath: Columns.project)
        try byName.controller.performFetch()
        let expected = try table.fresh(sortDescriptors: [
            .ascending("project"), .descending("rank"), .ascending("title"),
        ])
        #expect(try byName.sections() == expected)
        #expect(byName.controller.sectionNameKeyPath == "project")
        if kind == .sqlite {
            typed.sortDescriptors = [
                .ascending(Column("project")), .descending(Column("rank")), .ascending(Columns.title),
            ]
            let grdb = table.controller(request: typed, sectionNameKeyPath: Column("project"))
            try grdb.controller.performFetch()
            #expect(try grdb.sections() == expected)
        }
    }
}

extension PostgreSQLServerTests.NewcomerHabitsTests {
    /// The library's wait: a loop that waits on the controller beside its own descriptor sees
    /// another connection's commit, its own descriptor, and its own deadline, each for what it
    /// is, and sleeps in between.
    @Test(arguments: StoreKind.allCases)
    func aLoopWaitsOnTheControllerBesideItsOwnDescriptors(_ kind: StoreKind) throws {
        let table = try TodoTable(kind)
        try table.insertTasks(3)
        let controller = table.controller().controller
        let delegate = RowDelegate()
        controller.delegate = delegate
        try controller.performFetch()
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }

        // Another connection commits: the wait says the store may have changed.
        try table.execute("UPDATE todo SET rank = 0 WHERE id = 3")
        var wakes = 0, changed = false
        let end = ContinuousClock.now + .seconds(5)
        while !changed, ContinuousClock.now < end {
            let woke = controller.wait(alongside: [ends[0]], until: end)
            wakes += 1
            #expect(woke.readable.isEmpty)
            if woke.storeMayHaveChanged { changed = try controller.processPendingChanges() }
        }
        #expect(changed && delegate.objects.count == 1)
        #expect(wakes < 50, "woke \(wakes) times before the change")

        // The caller's own descriptor.
        var byte: UInt8 = 1
        #expect(write(ends[1], &byte, 1) == 1)
        let readable = controller.wait(alongside: [ends[0]], until: ContinuousClock.now + .seconds(5))
        #expect(readable.readable == [ends[0]])
        #expect(read(ends[0], &byte, 1) == 1)

        // The caller's deadline, on a clock of its own: a deadline already passed returns at once.
        let clock = SuspendingClock()
        let started = ContinuousClock.now
        let timedOut = controller.wait(alongside: [ends[0]], until: clock.now - .seconds(1), clock: clock)
        #expect(timedOut.readable.isEmpty)
        #expect(ContinuousClock.now - started < .seconds(1))
    }
}
