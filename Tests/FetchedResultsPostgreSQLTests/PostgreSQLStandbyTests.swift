import FetchedResults
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

/// A controller follows a hot standby: it reads the replicated history, and needs no `LISTEN`,
/// which a server in recovery refuses. A primary and a streaming standby of their own
/// (`pg_basebackup -R`), each in its folder, on its port, Unix sockets only.
@Suite(.serialized) struct PostgreSQLStandbyTests {
    static let byName = pgRequest(table: "item", sortDescriptors: [ColumnSortDescriptor(key: "name")])

    /// Connects to `conninfo` until the database is there (a standby has it once it replayed
    /// its creation), for at most `timeout`.
    static func connectWhenReplicated(
        _ conninfo: String, timeout: Duration = .seconds(30)
    ) throws
        -> PostgreSQLConnection
    {
        let end = ContinuousClock.now + timeout
        while true {
            do {
                let connection = try PostgreSQLConnection(conninfo)
                if try connection.execute("SELECT to_regclass('item') IS NOT NULL").scalar == "t" { return connection }
            } catch  where ContinuousClock.now < end {}
            try #require(ContinuousClock.now < end, "the standby never had the database")
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    @Test func aControllerOnAStandbyFollowsThePrimarysCommits() throws {
        let primary = try TemporaryCluster(port: 5441)
        defer { primary.stop() }
        try PostgreSQLConnection(primary.connectionString).execute("CREATE DATABASE standby_test")
        let onPrimary = "host=\(primary.socketFolder) port=\(primary.port) dbname=standby_test user=postgres"
        let writer = try PostgreSQLConnection(onPrimary)
        try writer.execute(standingsTableSQL)
        try PostgreSQLChangeFeed.install(on: "item", keyColumn: "id", in: writer)
        let standby = try primary.makeStandby(port: 5442)
        defer { standby.stop() }
        let onStandby = "host=\(standby.socketFolder) port=\(standby.port) dbname=standby_test user=postgres"
        let reader = try Self.connectWhenReplicated(onStandby)
        #expect(try reader.execute("SELECT pg_is_in_recovery()").scalar == "t")
        // What a follower that listened for NOTIFY met here.
        let refused = try #require(throws: PostgreSQLError.self) { try reader.execute("LISTEN fetched_results") }
        #expect("\(refused)".contains("recovery"), "\(refused)")

        let controller = FetchedResultsController<StandingsItem>(fetchRequest: Self.byName, conninfo: onStandby)
        let recorder = PostgreSQLRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        for (id, name) in [(1, "bravo"), (2, "alpha")] {
            try writer.execute("INSERT INTO item (id, name) VALUES ($1, $2)", [id, name])
        }
        try writer.execute("UPDATE item SET name = 'charlie' WHERE id = 1")
        let end = ContinuousClock.now + .seconds(10)
        while try controller.fetchedObjects?.map(\.name) != ["alpha", "charlie"], ContinuousClock.now < end {
            if controller.wait(until: end).storeMayHaveChanged { try controller.processPendingChanges() }
        }
        #expect(try controller.fetchedObjects?.map(\.name) == ["alpha", "charlie"], "the standby's screen caught up")
        #expect(recorder.errors.isEmpty, "\(recorder.errors)")

        // One URI naming both: reads prefer the standby, writes find the primary.
        let both =
            "host=\(primary.socketFolder),\(standby.socketFolder) port=\(primary.port),\(standby.port)"
            + " dbname=standby_test user=postgres"
        let read = try PostgreSQLConnection(both + " target_session_attrs=prefer-standby")
        #expect(try read.execute("SELECT pg_is_in_recovery()").scalar == "t", "reads go to the standby")
        let write = try PostgreSQLConnection(both + " target_session_attrs=read-write")
        #expect(try write.execute("SELECT pg_is_in_recovery()").scalar == "f", "writes go to the primary")
    }
}
