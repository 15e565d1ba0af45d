import FetchedResults
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// However the iteration of a change sequence ends, tracking ends with it and nothing more
    /// is buffered for nobody.
    @Suite struct SequenceEndTests {
        enum Exit: String, CaseIterable, CustomTestStringConvertible, Sendable {
            case breaking, returning, throwing, releasingTheIterator
            var testDescription: String { rawValue }
        }

        struct Stop: Error {}

        /// Leaves a sequence of change sets after its first element, the way `exit` says.
        @MainActor static func leave(_ sequence: some AsyncSequence<ChangeSet, any Error>, by exit: Exit) async throws {
            switch exit {
            case .breaking:
                for try await _ in sequence { break }
            case .returning:
                func first() async throws -> ChangeSet? {
                    for try await changeSet in sequence { return changeSet }
                    return nil
                }
                _ = try await first()
            case .throwing:
                do {
                    for try await _ in sequence { throw Stop() }
                } catch is Stop {}
            case .releasingTheIterator:
                do {
                    var iterator = sequence.makeAsyncIterator()
                    _ = try await iterator.next(isolation: MainActor.shared)
                }
            }
        }

        @MainActor @Test(arguments: StoreKind.allCases, Exit.allCases)
        func leavingASequenceEndsTracking(_ kind: StoreKind, exit: Exit) async throws {
            let table = try TodoTable(kind)
            try table.insertTasks(3)
            let todos = table.controller()
            let controller = todos.controller
            // The first element arrives once a write is seen.
            let writer = Task { @MainActor in
                try await Task.sleep(for: .milliseconds(50))
                try table.execute("UPDATE todo SET rank = 0 WHERE id = 3")
            }
            try await Self.leave(todos.changeSets(), by: exit)
            _ = try await writer.value
            #expect(!controller.isTracking, "tracking ended with the iteration")
            // Later writes are not followed, so nothing is kept for them.
            for rank in 1...20 { try todos.write("UPDATE todo SET rank = \(rank) WHERE id = 1") }
            #expect(!controller.isTracking)
        }

        @MainActor @Test(arguments: StoreKind.allCases)
        func cancellingTheIteratingTaskEndsTracking(_ kind: StoreKind) async throws {
            let table = try TodoTable(kind)
            try table.insertTasks(3)
            let todos = table.controller()
            let controller = todos.controller
            let started = Shared(false)
            let iteration = Task { @MainActor in
                for try await _ in todos.snapshots() { started.withLock { $0 = true } }
            }
            while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
            #expect(controller.isTracking)
            iteration.cancel()
            _ = try await iteration.value
            #expect(!controller.isTracking)
        }
    }
}
