import ControllerOracles
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension PostgreSQLServerTests {
    /// The controller's contract where the randomised oracle does not reach: a connection cut by
    /// the server, a server away for a while, the socket waking a `poll` loop on a loss, and requests
    /// it refuses with a reason.
    @Suite struct PostgreSQLControllerTests {
        static let byName = pgRequest(
            table: "item", sortDescriptors: [ColumnSortDescriptor(key: "name", collation: .caseInsensitive)],
            predicate: "visible = $1", arguments: [1])
        static let orderBy = #"lower(name COLLATE "C") NULLS FIRST, id"#

        func trackedController(
            _ conninfo: String
        ) throws -> (FetchedResultsController<StandingsItem>, PostgreSQLRecorder) {
            let controller = FetchedResultsController<StandingsItem>(fetchRequest: Self.byName, conninfo: conninfo)
            let recorder = PostgreSQLRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            return (controller, recorder)
        }

        func insert(_ names: [String], from id: Int, on connection: PostgreSQLConnection) throws {
            for (offset, name) in names.enumerated() {
                try connection.execute("INSERT INTO item (id, name) VALUES ($1, $2)", [id + offset, name])
            }
        }

        /// The change sequences wait for the server by themselves: a commit by another connection
        /// is found by their next look, and each element is what that commit did.
        @Test func changeSetsAndSnapshotsArriveAsAsyncSequences() async throws {
            let (conninfo, writer) = try standingsDatabase()
            try insert(["delta", "alpha"], from: 1, on: writer)
            let controller = FetchedResultsController<StandingsItem>(fetchRequest: Self.byName, conninfo: conninfo)
            var changeSets = controller.changeSets().makeAsyncIterator()
            var snapshots = controller.snapshots().makeAsyncIterator()
            #expect(try await snapshots.next()?.rowIDs == [2, 1], "the first step fetches, with tracking")
            #expect(controller.isTracking)
            try insert(["bravo"], from: 3, on: writer)
            let inserted = try await changeSets.next()
            #expect(inserted?.objectChanges.map(\.type) == [.insert])
            #expect(inserted?.objectChanges.first?.newIndexPath == IndexPath(row: 1, section: 0))
            #expect(try await snapshots.next()?.rowIDs == [2, 3, 1], "the newest snapshot")
            try writer.execute("UPDATE item SET name = 'zulu' WHERE id = 2")
            #expect(try await changeSets.next()?.objectChanges.map(\.type) == [.move])
        }

        @Test func aTerminatedConnectionIsReportedThenCaughtUpInOneChangeSet() throws {
            let (conninfo, writer) = try standingsDatabase()
            try insert(["delta", "alpha"], from: 1, on: writer)
            let (controller, recorder) = try trackedController(conninfo)
            #expect(try controller.fetchedObjects?.map(\.name) == ["alpha", "delta"])

            let terminated = try writer.execute(
                """
                SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()
                """
            ).scalar
            #expect(terminated == "1", "the controller's connection was the only other one")
            try insert(["charlie", "bravo"], from: 3, on: writer)
            try writer.execute("DELETE FROM item WHERE name = 'delta'")

            #expect(try controller.processPendingChanges() == false, "the look finds the connection gone")
            guard case .reconnecting = controller.connectionState else {
                Issue.record("expected reconnecting, got \(controller.connectionState)")
                return
            }
            #expect(recorder.errors.count == 1, "the loss is reported once")
            #expect(try controller.fetchedObjects?.map(\.name) == ["alpha", "delta"], "the last results are kept")

            try lookUntilConnected(controller)
            #expect(try controller.fetchedObjects?.map(\.name) == ["alpha", "bravo", "charlie"])
            #expect(recorder.batches.count == 1, "one change set for everything missed")
            #expect(recorder.connectionStates.last == .connected)
            #expect(
                try controllerState(controller) == (try serverState(writer, orderBy: Self.orderBy, sectioned: false)))
        }

        @Test func aServerAwayForSecondsIsWaitedForWithBackOff() throws {
            let (conninfo, writer) = try standingsDatabase()
            try insert(["alpha"], from: 1, on: writer)
            let (controller, recorder) = try trackedController(conninfo)
            let cluster = try TemporaryCluster.shared.get()
            try cluster.stopServer()
            var startedAgain = false
            defer { if !startedAgain { try? cluster.startServer() } }

            // Looks while the server is away: each is quick, none throws, attempts back off.
            let away = ContinuousClock.now
            var looks = 0
            while ContinuousClock.now - away < .seconds(2) {
                #expect(try controller.processPendingChanges() == false)
                looks += 1
                Thread.sleep(forTimeInterval: 0.01)
            }
            guard case let .reconnecting(attempts, lastError) = controller.connectionState else {
                Issue.record("expected reconnecting, got \(controller.connectionState)")
                return
            }
            #expect(
                attempts >= 3 && attempts < looks / 4, "\(attempts) attempts in \(looks) looks: back-off spaces them")
            #expect(lastError.contains("connect"), "libpq's reason: \(lastError)")
            #expect(try controller.fetchedObjects?.map(\.name) == ["alpha"])

            try cluster.startServer()
            startedAgain = true
            let writerAgain = try PostgreSQLConnection(conninfo)
            try insert(["bravo"], from: 2, on: writerAgain)
            try lookUntilConnected(controller)
            #expect(try controller.fetchedObjects?.map(\.name) == ["alpha", "bravo"])
            #expect(recorder.batches.count == 1)
            _ = writer
        }

        /// The controller's socket wakes a loop when the server ends the connection: the look
        /// finds the loss at once, and later looks reconnect.
        @Test func theSocketWakesALoopWhenTheServerEndsTheConnection() throws {
            let (conninfo, writer) = try standingsDatabase()
            let (controller, recorder) = try trackedController(conninfo)
            let socket = try #require(controller.wakeDescriptor)
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            #expect(poll(&descriptor, 1, 50) == 0, "idle: nothing to read")
            try writer.execute(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()
                """)
            #expect(poll(&descriptor, 1, 5000) == 1, "the server's goodbye makes the socket readable")
            #expect(try controller.processPendingChanges() == false)
            guard case .reconnecting = controller.connectionState else {
                Issue.record("expected reconnecting, got \(controller.connectionState)")
                return
            }
            try insert(["alpha"], from: 1, on: writer)
            try lookUntilConnected(controller)
            #expect(try controller.fetchedObjects?.map(\.name) == ["alpha"])
            #expect(recorder.batches.count == 1)
        }

        /// An event loop's look (after the controller's wait) does not wait for a server that
        /// has not answered (here the table is locked; a cut link is the same): it returns with
        /// nothing, the socket wakes the loop when the rows arrive, and the next look delivers
        /// them.
        @Test func aLoopsLookReturnsBeforeAServerThatHasNotAnswered() throws {
            let (conninfo, writer) = try standingsDatabase()
            let (controller, recorder) = try trackedController(conninfo)
            // A follower that has looked before (and so prepared its look's statement).
            #expect(try controller.processPendingChanges() == false)
            // A look that waited for the lock would outlast this, and the commit below would fail.
            try writer.execute("SET idle_in_transaction_session_timeout = '5s'")
            try writer.execute("BEGIN")
            try writer.execute("LOCK TABLE item IN ACCESS EXCLUSIVE MODE")
            try insert(["alpha"], from: 1, on: writer)
            var loopLooks = 0
            let looking = ContinuousClock.now + .seconds(3)
            while loopLooks < 3, ContinuousClock.now < looking {
                guard controller.wait(until: looking).storeMayHaveChanged else { continue }
                #expect(try controller.processPendingChanges() == false)
                loopLooks += 1
            }
            #expect(loopLooks == 3)
            #expect(recorder.batches.isEmpty)
            try writer.execute("COMMIT")
            let end = ContinuousClock.now + .seconds(30)
            while recorder.batches.isEmpty, ContinuousClock.now < end {
                if controller.wait(until: end).storeMayHaveChanged { try controller.processPendingChanges() }
            }
            #expect(try controller.fetchedObjects?.map(\.name) == ["alpha"])
            #expect(recorder.batches.count == 1)
        }

        /// `processPendingChanges()` called by itself, not after a wait, delivers every change
        /// committed before it, however slowly the server answers (here another session holds
        /// the table locked for a moment after the commit), as Core Data's does.
        @Test func aLookOutsideALoopWaitsForTheServersAnswer() throws {
            let (conninfo, writer) = try standingsDatabase()
            let (controller, recorder) = try trackedController(conninfo)
            #expect(try controller.processPendingChanges() == false)
            try insert(["alpha"], from: 1, on: writer)
            let released = Flag()
            let locker = Thread {
                guard let connection = try? PostgreSQLConnection(conninfo) else { return released.set() }
                _ = try? connection.execute("BEGIN")
                _ = try? connection.execute("LOCK TABLE item IN ACCESS EXCLUSIVE MODE")
                usleep(300_000)
                _ = try? connection.execute("COMMIT")
                released.set()
            }
            locker.start()
            let locked = ContinuousClock.now + .seconds(10)
            while try writer.execute(
                "SELECT count(*) FROM pg_locks WHERE relation = 'item'::regclass AND mode = 'AccessExclusiveLock'"
            ).scalar != "1", ContinuousClock.now < locked, !released.value {
                usleep(5_000)
            }
            #expect(!released.value, "the lock is held while the controller looks")
            #expect(try controller.processPendingChanges() == true, "the change committed before the call")
            #expect(try controller.fetchedObjects?.map(\.name) == ["alpha"])
            #expect(recorder.batches.count == 1)
            while !released.value { usleep(10_000) }
        }

        /// Twenty items followed in batches of 5, none held: a row asked for is read from the
        /// server, on the controller's connection.
        func batchedController() throws -> (
            PostgreSQLConnection, FetchedResultsController<StandingsItem>, PostgreSQLRecorder
        ) {
            let (conninfo, writer) = try standingsDatabase()
            try insert((10..<30).map { "item \($0)" }, from: 1, on: writer)
            var request = Self.byName
            request.fetchBatchSize = 5
            let controller = FetchedResultsController<StandingsItem>(fetchRequest: request, conninfo: conninfo)
            let recorder = PostgreSQLRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            return (writer, controller, recorder)
        }

        /// The controller's own write is delivered before it returns; the looks it follows with
        /// go on, and stop with tracking.
        @Test func aWriteIsDeliveredAndStoppingCallsForNoMoreLooks() throws {
            let (_, controller, recorder) = try batchedController()
            try controller.write { connection in
                try connection.execute("UPDATE item SET name = 'zulu' WHERE id = 1")
            }
            #expect(recorder.batches.count == 1, "the write's change set")
            #expect(controller.nextLookDeadline != nil, "following: a look to come")
            controller.stopTracking()
            #expect(controller.nextLookDeadline == nil, "not tracking: no look is called for")
        }

        /// Looks that fail (the table was renamed away) are not repeated at once: they slow down
        /// as idle looks do, or a loop would look, fail, and look again without a pause.
        @Test func failingLooksSlowDown() throws {
            let (writer, controller, recorder) = try batchedController()
            try writer.execute("ALTER TABLE item RENAME TO item_away")
            try writer.execute("UPDATE item_away SET visible = 1 WHERE id = 1")
            var looks = 0
            let end = ContinuousClock.now + .seconds(1)
            while ContinuousClock.now < end {
                if controller.wait(until: end).storeMayHaveChanged {
                    looks += 1
                    _ = try? controller.processPendingChanges()
                }
            }
            #expect(!recorder.errors.isEmpty, "the looks failed")
            #expect(looks < 100, "\(looks) looks in a second")
        }

        /// A read outside a look (a row of a batch not in memory) may be what reconnects after a
        /// loss. The commits made meanwhile may be many: the look deadline calls for a look at
        /// once, whatever the pace had come to.
        @Test func aReconnectionOutsideALookStillCallsForALook() throws {
            let (writer, controller, recorder) = try batchedController()
            try writer.execute(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()
                """)
            try writer.execute("UPDATE item SET name = 'zulu' WHERE id = 1")
            #expect(try controller.processPendingChanges() == false, "the look finds the connection gone")
            let deadline = ContinuousClock.now + .seconds(10)
            while controller.connectionState != .connected, ContinuousClock.now < deadline {
                _ = try? controller.object(at: IndexPath(row: 15, section: 0))
                Thread.sleep(forTimeInterval: 0.01)
            }
            try #require(controller.connectionState == .connected, "a row read reconnected")
            let due = try #require(controller.nextLookDeadline, "a look is due: the missed commit sent nothing")
            #expect(due <= .now)
            #expect(try controller.processPendingChanges())
            #expect(try controller.fetchedObjects?.last?.name == "zulu")
            #expect(recorder.connectionStates.last == .connected)
        }

        /// A look's statement is prepared once per connection; a column added to the table
        /// while the controller follows it changes the statement's result, and the next look
        /// still delivers, without an error.
        @Test func aColumnAddedWhileFollowingChangesNothingForTheNextLook() throws {
            let (conninfo, writer) = try standingsDatabase()
            try insert(["delta", "alpha"], from: 1, on: writer)
            let (controller, recorder) = try trackedController(conninfo)
            for (offset, name) in ["bravo", "charlie"].enumerated() {
                try insert([name], from: 3 + offset, on: writer)
                #expect(try controller.processPendingChanges())
            }
            try writer.execute("ALTER TABLE item ADD COLUMN extra text")
            try insert(["echo"], from: 5, on: writer)
            #expect(try controller.processPendingChanges())
            #expect(recorder.errors.isEmpty, "\(recorder.errors)")
            #expect(try controller.fetchedObjects?.map(\.name) == ["alpha", "bravo", "charlie", "delta", "echo"])
            try writer.execute("ALTER TABLE item DROP COLUMN extra")
            try writer.execute("UPDATE item SET name = 'zulu' WHERE id = 1")
            #expect(try controller.processPendingChanges())
            #expect(recorder.errors.isEmpty, "\(recorder.errors)")
            #expect(try controller.fetchedObjects?.map(\.name) == ["alpha", "bravo", "charlie", "echo", "zulu"])
        }

        @Test func requestsItCannotFollowAreRefusedWithAReason() throws {
            let (conninfo, connection) = try standingsDatabase()
            let unsorted = FetchedResultsController<PostgreSQLRow>(
                fetchRequest: pgRequest(table: "item", sortDescriptors: []), conninfo: conninfo)
            #expect(throws: FetchedResultsError.missingSortDescriptors(table: "item")) { try unsorted.performFetch() }

            let mismatched = FetchedResultsController<PostgreSQLRow>(
                fetchRequest: Self.byName, conninfo: conninfo, sectionNameKeyPath: "grp")
            #expect(throws: FetchedResultsError.sectionKeyPathMismatch(sectionNameKeyPath: "grp", firstSortKey: "name"))
            {
                try mismatched.performFetch()
            }

            try connection.execute("CREATE TABLE plain (id bigint PRIMARY KEY, name text)")
            let untracked = FetchedResultsController<PostgreSQLRow>(
                fetchRequest: pgRequest(table: "plain", sortDescriptors: Self.byName.sortDescriptors),
                conninfo: conninfo)
            try untracked.performFetch()
            let recorder = CallbackLog<PostgreSQLRow>()
            untracked.delegate = recorder
            #expect(
                throws: FetchedResultsError.changeFeedMissing(
                    table: "plain",
                    installation: "PostgreSQLChangeFeed.install(on: \"plain\", keyColumn: …, in: connection)")
            ) { try untracked.performFetch() }

            let nowhere = FetchedResultsController<PostgreSQLRow>(
                fetchRequest: Self.byName, conninfo: conninfo + "_missing")
            let error = try #require(throws: PostgreSQLError.self) { try nowhere.performFetch() }
            #expect("\(error)".contains("does not exist"), "libpq's reason: \(error)")
        }

        /// A feed an earlier version installed has the triggers but not the function looks read:
        /// following it is refused with the installation to run, which then makes it followable.
        @Test func aFeedFromAnEarlierVersionIsRefusedUntilInstalledAgain() throws {
            let (conninfo, writer) = try standingsDatabase()
            try insert(["alpha", "bravo"], from: 1, on: writer)
            try writer.execute("DROP FUNCTION fetched_results_changes_since(pg_snapshot)")
            let controller = FetchedResultsController<StandingsItem>(fetchRequest: Self.byName, conninfo: conninfo)
            let recorder = PostgreSQLRecorder()
            controller.delegate = recorder
            #expect(
                throws: FetchedResultsError.changeFeedMissing(
                    table: "item",
                    installation: "PostgreSQLChangeFeed.install(on: \"item\", keyColumn: …, in: connection)")
            ) { try controller.performFetch() }

            try PostgreSQLChangeFeed.install(on: "item", keyColumn: "id", in: writer)
            try controller.performFetch()
            try insert(["charlie"], from: 3, on: writer)
            #expect(try controller.processPendingChanges())
            #expect(try controller.fetchedObjects?.map(\.name) == ["alpha", "bravo", "charlie"])
        }

        @Test func batchesReadRowsWhenAskedAndSectionsFollowTheirFirstRow() throws {
            let (conninfo, writer) = try standingsDatabase()
            for id in 1...50 {
                try writer.execute(
                    "INSERT INTO item (id, grp, name) VALUES ($1, $2, $3)",
                    [id, id % 2 == 0 ? "even" : "Odd", "n\(id)"])
            }
            let request = pgRequest(
                table: "item",
                sortDescriptors: [
                    ColumnSortDescriptor(key: "grp", collation: .caseInsensitive),
                    ColumnSortDescriptor(key: "name"),
                ],
                fetchBatchSize: 5)
            let controller = FetchedResultsController<StandingsItem>(
                fetchRequest: request, conninfo: conninfo, sectionNameKeyPath: "grp")
            let recorder = PostgreSQLRecorder()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.loadedRowCount == 0, "a batched fetch reads keys only")
            #expect((0..<controller.numberOfSections).map(controller.sectionName(at:)) == ["even", "Odd"])
            #expect(try controller.object(at: IndexPath(row: 0, section: 1)).name == "n1")
            #expect(controller.loadedRowCount == 5)
            #expect(controller.sectionIndexTitles == ["E", "O"])

            // The first row of "Odd" now spells it "odd": the section is renamed, as a fresh fetch names it.
            try writer.execute("UPDATE item SET grp = 'odd' WHERE id = 1")
            try controller.processPendingChanges()
            #expect(controller.sectionName(at: 1) == "odd")
            #expect(recorder.batches.first?.sections == [SectionChange(type: .update, index: 1, name: "odd")])
            let fresh = FetchedResultsController<StandingsItem>(
                fetchRequest: request, conninfo: conninfo, sectionNameKeyPath: "grp")
            try fresh.performFetch()
            #expect((0..<fresh.numberOfSections).map(fresh.sectionName(at:)) == ["even", "odd"])
        }

        /// More rows than one cursor batch (10,000): the order and sections still equal the server's.
        @Test func aFetchLargerThanOneCursorBatchKeepsTheServersOrder() throws {
            let (conninfo, writer) = try standingsDatabase()
            try writer.execute(
                """
                INSERT INTO item (id, grp, score, name)
                SELECT i, (ARRAY['Africa', 'africa', 'Asia', NULL])[1 + i % 4], (i * 7) % 11, md5(i::text)
                FROM generate_series(1, 25000) AS i
                """)
            let request = pgRequest(
                table: "item", sortDescriptors: ItemWorkload.standings,
                predicate: "visible = $1", arguments: [1])
            let controller = FetchedResultsController<StandingsItem>(
                fetchRequest: request, conninfo: conninfo, sectionNameKeyPath: "grp")
            try controller.performFetch()
            let expected = try serverState(
                writer, orderBy: standingsOrderBy, sectioned: true)
            #expect(try controllerState(controller) == expected)
            #expect(controller.numberOfSections == 3, "NULL, then Africa/africa together, then Asia")
        }
    }
}
