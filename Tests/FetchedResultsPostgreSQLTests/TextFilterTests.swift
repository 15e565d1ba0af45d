import ControllerOracles
import FetchedResults
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// A filter typed into a list (htop's, k9s'): the request gains a ``TextFilter``, which the
    /// controller narrows in memory as the text lengthens and the store answers when it does
    /// not, each change arriving as one change set a table view can apply.
    @Suite struct TextFilterTests {
        /// Titles fold case; ranks stay unique, so the stores' byte order of titles never decides.
        static let order: [ColumnSortDescriptor] = [
            .ascending("project"), .ascending("rank"), .ascending("title", collation: .caseInsensitive),
        ]
        static let titleIndex = 2
        static let letters = ["t", "a", "s", "k", " ", "1", "2", "3", "T", "K", "!"]

        /// The oracle, in Swift rather than in SQL or in sort keys: the tasks in the store's order
        /// whose title holds `text`, ASCII letters in either case.
        static func expected(_ table: TodoTable, _ text: String) throws -> SectionedState<Todo> {
            func folded(_ text: String) -> [UInt8] { text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 } }
            let needle = folded(text)
            func holds(_ title: String) -> Bool {
                let title = folded(title)
                guard needle.count <= title.count else { return false }
                return (0...(title.count - needle.count)).contains {
                    title[$0..<($0 + needle.count)].elementsEqual(needle)
                }
            }
            let sections = try table.fresh(sortDescriptors: order).map { $0.filter { holds($0.title) } }
            return RequestChangeTests.state(sections.filter { !$0.isEmpty })
        }

        static func request(
            _ table: TodoTable, _ text: String, batchSize: Int, order: [ColumnSortDescriptor] = order
        ) -> TableFetchRequest {
            var request = table.request(sortDescriptors: order, batchSize: batchSize)
            request.textFilter = text.isEmpty ? nil : TextFilter(sortDescriptorAt: titleIndex, containing: text)
            return request
        }

        /// A controller on `request`, fetched, whose delegate records its callbacks: it tracks
        /// changes, so filters may be answered in memory.
        static func followed(
            _ table: TodoTable, _ request: TableFetchRequest
        ) throws -> (FetchedResultsController<Todo>, CallbackLog<Todo>) {
            let controller = table.controller(request: request).controller
            let log = CallbackLog<Todo>()
            controller.delegate = log
            try controller.performFetch()
            return (controller, log)
        }

        /// Changes the filter from the results `before` to `next`, checks the controller and its
        /// one change set against the oracle, and returns the new results.
        static func filter(
            _ controller: FetchedResultsController<Todo>, _ log: CallbackLog<Todo>, _ table: TodoTable,
            from before: SectionedState<Todo>, to next: String, batchSize: Int, context: String
        ) throws -> SectionedState<Todo> {
            log.reset()
            try controller.setFetchRequest(request(table, next, batchSize: batchSize))
            let after = try expected(table, next)
            _ = try checkStep(
                log, old: before, new: after, controllerState: try RequestChangeTests.state(of: controller),
                rolledBack: false, batched: batchSize > 0, context: context)
            #expect(log.errors.isEmpty, "\(context)")
            return after
        }

        /// The next text as a user types: mostly a key more, sometimes one less, a new start.
        static func typed(after text: String, _ random: inout SplitMix64) -> String {
            let letter = letters[Int(random.next() % UInt64(letters.count))]
            switch random.next() % 10 {
            case 0..<6: return text + letter
            case 6..<8: return String(text.dropLast())
            case 8: return ""
            default: return letter
            }
        }

        /// 2,000 tasks: the keys held span several chunks. Without other writers' commits, a
        /// shorter text is answered from the keys alone.
        @Test(
            arguments: StoreKind.allCases,
            [(60, 0, true), (60, 7, true), (2000, 0, true), (2000, 7, true), (2000, 7, false)])
        func aFilterTypedArrivesAsOneChangeSetPerChange(
            _ kind: StoreKind, size: (tasks: Int, batchSize: Int, commits: Bool)
        ) throws {
            let batchSize = size.batchSize
            let seed = randomisedTestSeed(
                20261128,
                for: "TextFilterTests[\(kind), \(size.tasks) tasks, batch \(batchSize), commits: \(size.commits)]")
            var random = SplitMix64(seed: seed)
            let table = try TodoTable(kind)
            try table.insertTasks(size.tasks, projects: 4)
            let (controller, log) = try Self.followed(table, Self.request(table, "", batchSize: batchSize))
            var text = ""
            var before = try RequestChangeTests.state(of: controller)
            for step in 0..<40 {
                if size.commits, random.next() % 4 == 0 {
                    // Another writer's commit, looked at under the filter in force.
                    let id = Int(random.next() % UInt64(size.tasks)) + 1
                    let title = random.next() % 2 == 0 ? "Task \(id) TK" : "task \(id)!"
                    try table.execute(
                        "UPDATE todo SET rank = \(100_000 + step * 10_000 + id), title = '\(title)' WHERE id = \(id)")
                    log.reset()
                    _ = try controller.processPendingChanges()
                    let after = try Self.expected(table, text)
                    _ = try checkStep(
                        log, old: before, new: after, controllerState: try RequestChangeTests.state(of: controller),
                        rolledBack: false, batched: batchSize > 0, context: "seed \(seed), step \(step), commit")
                    before = after
                }
                let next = Self.typed(after: text, &random)
                before = try Self.filter(
                    controller, log, table, from: before, to: next, batchSize: batchSize,
                    context: "seed \(seed), step \(step), “\(text)” → “\(next)”")
                text = next
            }
        }

        /// After a first filter, with a batch size, any other text is answered from the keys it
        /// narrowed: shorter ones, others that hide some rows and show others, none.
        @Test(arguments: StoreKind.allCases)
        func anotherTextIsAnsweredFromTheKeysTheFirstFilterNarrowed(_ kind: StoreKind) throws {
            let table = try TodoTable(kind)
            try table.insertTasks(2000, projects: 4)
            let (controller, log) = try Self.followed(table, Self.request(table, "", batchSize: 7))
            var (before, text) = (try RequestChangeTests.state(of: controller), "")
            for next in ["1", "12", "2", "23", "3", "k 1", "K 19", "9", "", "7", "77", "", "a"] {
                before = try Self.filter(
                    controller, log, table, from: before, to: next, batchSize: 7, context: "“\(text)” → “\(next)”")
                text = next
            }
        }

        /// Answering in memory keeps the position the results are exact at: a commit not looked
        /// at yet arrives first, as its own change set, and the narrowing (or, with a batch size,
        /// the widening back) follows it. A request the store answers arrives as one change set
        /// with the commit in it.
        @Test(arguments: StoreKind.allCases)
        func aCommitNotLookedAtArrivesBeforeTheFilterChange(_ kind: StoreKind) throws {
            let table = try TodoTable(kind)
            try table.insertTasks(30, projects: 3)
            let (controller, log) = try Self.followed(table, Self.request(table, "", batchSize: 7))
            /// Sets the filter after `commit`, and checks the two change sets against the oracle.
            func change(to text: String, after commit: String, from current: String) throws {
                let before = try Self.expected(table, current)
                try #require(try RequestChangeTests.state(of: controller) == before)
                try table.execute(commit)
                let committed = try Self.expected(table, current)
                log.reset()
                try controller.setFetchRequest(Self.request(table, text, batchSize: 7))
                let after = try Self.expected(table, text)
                #expect(try RequestChangeTests.state(of: controller) == after)
                try #require(log.batches.count == 2, "“\(current)” → “\(text)”: the commit's, then the filter's")
                let (afterCommit, commitProblems) = replay(log.batches[0], onto: before, new: committed)
                #expect(commitProblems.isEmpty && afterCommit.sections.map(\.ids) == committed.sections.map(\.ids))
                let (afterFilter, problems) = replay(log.batches[1], onto: committed, new: after)
                #expect(problems.isEmpty && afterFilter.sections.map(\.ids) == after.sections.map(\.ids))
            }
            try change(to: "task 1", after: "UPDATE todo SET rank = 3 WHERE id = 30", from: "")
            // A shown task moves, and still matches the longer text.
            try change(
                to: "task 1 ", after: "UPDATE todo SET title = 'TASK 1 moved', rank = 5 WHERE id = 1", from: "task 1")
            #expect(try Self.expected(table, "task 1 ").sections.map(\.ids).joined().sorted() == [1])
            // Every task again, with one changed while the filters were in force.
            try change(to: "", after: "UPDATE todo SET title = 'task 1 again', rank = 7 WHERE id = 20", from: "task 1 ")
        }

        /// A section's name is its first row's value: when another writer respells it while a
        /// filter is in force (the same zone, in capitals), the list widened from the keys the
        /// first filter narrowed names the section as the row now spells it.
        @Test(arguments: StoreKind.allCases)
        func aSectionRespelledWhileFilteredIsNamedAfterItsFirstRowAgain(_ kind: StoreKind) throws {
            let order: [ColumnSortDescriptor] = [
                .ascending("project", collation: .caseInsensitive), .ascending("rank"),
                .ascending("title", collation: .caseInsensitive),
            ]
            let table = try TodoTable(kind)
            func request(_ text: String) -> TableFetchRequest { Self.request(table, text, batchSize: 7, order: order) }
            try table.insertTasks(30, projects: 3)
            let (controller, log) = try Self.followed(table, request(""))
            try controller.setFetchRequest(request("task 1"))
            // Task 1 starts project p1, and is shown under the filter.
            try table.execute("UPDATE todo SET project = 'P1' WHERE id = 1")
            try controller.processPendingChanges()
            try controller.setFetchRequest(request(""))
            let names = try table.fresh(sortDescriptors: order).map { $0[0].project }
            #expect(names.contains("P1"))
            let shown = try controller.sections?.map(\.name)
            #expect(shown == names)
            withExtendedLifetime(log) {}  // the delegate, held weakly, keeps the controller tracking
        }

        /// A text is matched up to a NUL character, as the stores' SQL sees it; on SQLite a value
        /// is matched up to one too, where its sort key ends. Answered in memory or by the store,
        /// the same rows.
        @Test(arguments: StoreKind.allCases)
        func aNULEndsTheTextInMemoryAsInTheStore(_ kind: StoreKind) throws {
            let table = try TodoTable(kind)
            try table.insertTasks(12)
            if kind == .sqlite {
                try table.execute("UPDATE todo SET title = 'task ' || char(0) || 'hidden' WHERE id = 3")
            }
            func ids(_ controller: FetchedResultsController<Todo>) throws -> [Int64] {
                try (controller.sections ?? []).flatMap { $0.objects.map(\.id) }
            }
            // What each text matches, and how many tasks: none hold "hidden" before a NUL.
            for (text, count) in [("hidden", 0), ("task 1\0zzz", 4), ("1\0", 4)] {
                let (inMemory, log) = try Self.followed(table, Self.request(table, "", batchSize: 7))
                try inMemory.setFetchRequest(Self.request(table, text, batchSize: 7))
                let byTheStore = table.controller(request: Self.request(table, text, batchSize: 7)).controller
                try byTheStore.performFetch()
                #expect(try ids(inMemory) == ids(byTheStore), "\(text.debugDescription)")
                #expect(try ids(byTheStore).count == count, "\(text.debugDescription)")
                withExtendedLifetime(log) {}  // the delegate, held weakly, keeps it tracking
            }
        }

        @Test(arguments: StoreKind.allCases)
        func aFilterOnAColumnThatIsNotTextIsRefused(_ kind: StoreKind) throws {
            let table = try TodoTable(kind)
            try table.insertTasks(6)
            let controller = table.controller().controller
            try controller.performFetch()
            var request = table.request()
            request.textFilter = TextFilter(sortDescriptorAt: 5, containing: "1")
            #expect(throws: FetchedResultsError.self) { try controller.setFetchRequest(request) }
            request.textFilter = TextFilter(sortDescriptorAt: 1, containing: "1")  // rank
            if kind == .postgresql {
                #expect(
                    throws: FetchedResultsError.textFilterUnsupported(key: "rank", reason: "it is not text")
                ) { try controller.setFetchRequest(request) }
            } else {
                // SQLite's values have no column type: a number is never text, so none matches.
                try controller.setFetchRequest(request)
                #expect(try controller.fetchedObjects?.isEmpty == true)
            }
        }
    }
}
