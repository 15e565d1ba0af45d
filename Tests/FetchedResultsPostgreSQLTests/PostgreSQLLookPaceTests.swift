import FetchedResults
import Foundation
import TestSupport
import Testing

@testable import FetchedResultsPostgreSQL

extension PostgreSQLServerTests {
    /// When a following PostgreSQL store looks: the triggers send no `NOTIFY`, so it looks on a
    /// pace, quick after a change and slower while idle, and at once when a writer announces
    /// its commit.
    @Suite struct PostgreSQLLookPaceTests {
        /// The pace of looks: quick after a look that found changes, doubling while looks find
        /// nothing (or fail), up to the slowest; the first look at once.
        @Test func looksSlowDownWhileIdleAndSpeedUpAfterAChange() {
            let pace = LookPace(quickest: .milliseconds(1), slowest: .milliseconds(100))
            var schedule = LookSchedule(pace: pace)
            let start = ContinuousClock.now
            #expect(schedule.nextLook <= .now, "the first look at once")
            schedule.found(at: start)
            #expect(schedule.nextLook == start + .milliseconds(1))
            var waits: [Duration] = []
            var instant = start
            for _ in 0..<9 {
                instant = schedule.nextLook
                schedule.began(at: instant)
                waits.append(schedule.nextLook - instant)
            }
            #expect(waits.map { $0 / .milliseconds(1) } == [2, 4, 8, 16, 32, 64, 100, 100, 100])
            schedule.found(at: instant)
            #expect(schedule.nextLook == instant + .milliseconds(1), "a change: quick again")
            #expect(LookPace(quickest: .milliseconds(5), slowest: .milliseconds(1)).slowest == .milliseconds(5))
        }

        /// While every look finds changes (a table written without a pause), the wait after each
        /// doubles from the quickest up to `whileBusy`, so a look reads many changes at once;
        /// one look that finds nothing, and the next change is looked for quickly again.
        @Test func looksSlowDownToAFrameWhileChangesKeepComing() {
            let pace = LookPace(quickest: .milliseconds(1), whileBusy: .milliseconds(16), slowest: .milliseconds(100))
            var schedule = LookSchedule(pace: pace)
            var instant = ContinuousClock.now
            func look(findingChanges: Bool) -> Int {
                instant = schedule.nextLook
                schedule.began(at: instant)
                if findingChanges { schedule.found(at: instant) }
                return Int((schedule.nextLook - instant) / .milliseconds(1))
            }
            #expect((0..<7).map { _ in look(findingChanges: true) } == [1, 2, 4, 8, 16, 16, 16])
            #expect(look(findingChanges: false) == 32, "idle: from the last wait on, doubling")
            #expect(look(findingChanges: true) == 1, "the first change after a quiet look: quick again")
            #expect(look(findingChanges: true) == 2)
            // A look sent and not yet answered (a busy server) keeps the stream's pace.
            instant = schedule.nextLook
            schedule.began(at: instant)
            schedule.answerPending()
            #expect(look(findingChanges: true) == 4, "not back to the quickest")
            #expect(
                LookPace(quickest: .milliseconds(1), whileBusy: .seconds(1), slowest: .milliseconds(100)).whileBusy
                    == .milliseconds(100), "never longer than the slowest")
            #expect(LookPace.default.whileBusy == .milliseconds(16))
            #expect(LookPace(quickest: .milliseconds(1), slowest: .milliseconds(100)).whileBusy == .milliseconds(1))
        }

        /// A loop that waits on the controller alone (its descriptor and its look deadline)
        /// sees a commit that sent nothing to any connection.
        @Test func aLoopWaitingOnTheControllerSeesACommitThatSentNothing() throws {
            let (conninfo, writer) = try standingsDatabase()
            // Whatever the feed's version, no notification.
            try writer.execute("DROP TRIGGER IF EXISTS fetched_results_item_notify ON item")
            let controller = FetchedResultsController<StandingsItem>(
                fetchRequest: pgRequest(table: "item", sortDescriptors: [ColumnSortDescriptor(key: "name")]),
                conninfo: conninfo)
            let recorder = PostgreSQLRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            // Idle a while first: the follower has slowed down.
            let idle = ContinuousClock.now + .milliseconds(500)
            while ContinuousClock.now < idle {
                if controller.wait(until: idle).storeMayHaveChanged { try controller.processPendingChanges() }
            }
            try writer.execute("INSERT INTO item (id, name) VALUES (1, 'alpha')")
            let end = ContinuousClock.now + .seconds(10)
            while recorder.batches.isEmpty, ContinuousClock.now < end {
                if controller.wait(until: end).storeMayHaveChanged { try controller.processPendingChanges() }
            }
            #expect(try controller.fetchedObjects?.map(\.name) == ["alpha"], "seen within a few seconds")
            #expect(recorder.batches.count == 1)
        }

        /// Not following (no tracking): no look is called for; following: one always is, on
        /// the pace, since nothing else says when a commit happened.
        @Test func aFollowingStoreAlwaysHasALookDeadline() throws {
            let (conninfo, _) = try standingsDatabase()
            let store = PostgreSQLStore(conninfo: conninfo)
            let controller = FetchedResultsController<StandingsItem>(
                fetchRequest: pgRequest(table: "item", sortDescriptors: [ColumnSortDescriptor(key: "name")]),
                store: store, decode: { try StandingsItem(row: $0) })
            let recorder = PostgreSQLRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.nextLookDeadline != nil)
            try controller.processPendingChanges()
            #expect(controller.nextLookDeadline != nil, "after a look that found nothing, a later one")
            controller.stopTracking()
            #expect(controller.nextLookDeadline == nil)
        }

        /// A commit announced (`PostgreSQLChangeFeed.announce(in:)`, after it) wakes a follower
        /// on a primary through its socket at once; one not announced waits for the follower's
        /// next look. The pace here is ten seconds, so only the announcement explains a
        /// delivery within two.
        @Test func anAnnouncedCommitWakesAFollowerAtOnce() throws {
            let (conninfo, writer) = try standingsDatabase()
            let pace = LookPace(quickest: .seconds(10), slowest: .seconds(10))
            let controller = FetchedResultsController<StandingsItem>(
                fetchRequest: pgRequest(table: "item", sortDescriptors: [ColumnSortDescriptor(key: "name")]),
                store: PostgreSQLStore(conninfo: conninfo, lookPace: pace), decode: { try StandingsItem(row: $0) })
            let recorder = PostgreSQLRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            try controller.processPendingChanges()

            func deliveries(within duration: Duration) throws -> Int {
                let end = ContinuousClock.now + duration, before = recorder.batches.count
                while recorder.batches.count == before, ContinuousClock.now < end {
                    if controller.wait(until: end).storeMayHaveChanged { try controller.processPendingChanges() }
                }
                return recorder.batches.count - before
            }
            try writer.execute("INSERT INTO item (id, name) VALUES (1, 'alpha')")
            #expect(try deliveries(within: .seconds(2)) == 0, "not announced: at the next look, seconds away")
            try writer.execute("INSERT INTO item (id, name) VALUES (2, 'beta')")
            try PostgreSQLChangeFeed.announce(in: writer)
            #expect(try deliveries(within: .seconds(2)) == 1, "announced: at once")
            #expect(try controller.fetchedObjects?.map(\.name) == ["alpha", "beta"])

            controller.stopTracking()
            try PostgreSQLChangeFeed.announce(in: writer)
            #expect(!controller.wait(until: .now + .milliseconds(500)).storeMayHaveChanged, "not following: not woken")
        }
    }
}
