import FetchedResultsPostgreSQL
import Foundation
import Glibc
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// libpq through the thin connection type, against a real server (the test run's own cluster).
    @Suite struct PostgreSQLConnectionTests {
        @Test func valuesTravelAsParametersAndComeBackLiterally() throws {
            let connection = try PostgreSQLConnection(try freshDatabase())
            try connection.execute("CREATE TABLE team (id bigserial PRIMARY KEY, name text NOT NULL, wins integer)")
            let hostile = [
                "Robert'); DROP TABLE team;--", "Evil\u{1B}]0;PWNED\u{07}", "日本代表 🇯🇵", "$1 \\ % _",
            ]
            for name in hostile {
                #expect(
                    try connection.execute("INSERT INTO team (name, wins) VALUES ($1, $2)", [name, nil]).affectedRows
                        == 1)
            }
            let rows = try connection.execute("SELECT name, wins FROM team ORDER BY id").rows
            #expect(rows.map { $0[0] } == hostile, "stored literally")
            #expect(rows.allSatisfy { $0[1] == nil }, "nil is NULL")
        }

        @Test func errorsSayWhatTheServerOrLibpqSaid() throws {
            let connection = try PostgreSQLConnection(try freshDatabase())
            #expect(
                throws: PostgreSQLError.statementFailed(
                    sqlState: .undefinedTable, message: "relation \"nowhere\" does not exist")
            ) {
                try connection.execute("SELECT * FROM nowhere")
            }
            let cluster = try TemporaryCluster.shared.get()
            do {
                _ = try PostgreSQLConnection(
                    "host=\(cluster.socketFolder) port=\(cluster.port) dbname=no_such_database user=postgres")
                Issue.record("connected to a database that does not exist")
            } catch let PostgreSQLError.connectionFailed(message) {
                #expect(message.contains("database \"no_such_database\" does not exist"), "\(message)")
            }
            // A transaction that throws is rolled back.
            try connection.execute("CREATE TABLE t (x integer)")
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try connection.transaction {
                    try connection.execute("INSERT INTO t VALUES (1)"); throw Stop()
                }
            }
            #expect(try connection.execute("SELECT count(*) FROM t").scalar == "0")
        }

        /// NOTIFY wakes a `poll` on the listener's socket; nothing else does.
        @Test func notificationsWakeAPollOnTheSocket() throws {
            let conninfo = try freshDatabase()
            let listener = try PostgreSQLConnection(conninfo), sender = try PostgreSQLConnection(conninfo)
            try listener.execute("LISTEN scores")
            func readable(_ milliseconds: Int32) -> Bool {
                var descriptor = pollfd(fd: listener.socket, events: Int16(POLLIN), revents: 0)
                return poll(&descriptor, 1, milliseconds) == 1
            }
            #expect(!readable(100))
            try sender.execute("SELECT pg_notify('scores', $1)", ["Brazil"])
            #expect(readable(5000))
            let received = try listener.notifications()
            #expect(received.map(\.channel) == ["scores"] && received.map(\.payload) == ["Brazil"])
            #expect(received.map(\.processID) == [sender.serverProcessID])
            #expect(try listener.notifications().isEmpty)
        }

        /// A server started while another test had a pipe open must not hold that pipe: the
        /// reader would never see its end (this once hung a `sqlite3` shell test for good).
        @Test func aRestartedServerHoldsNoDescriptorOfTheTests() throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            defer { close(ends[0]); close(ends[1]) }
            let cluster = try TemporaryCluster.shared.get()
            try cluster.restart()
            let pipeInode = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(ends[1])")
            let postmaster =
                try String(contentsOfFile: cluster.dataFolder + "/postmaster.pid", encoding: .utf8)
                .split(separator: "\n").first.map(String.init) ?? ""
            let held = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(postmaster)/fd").compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(postmaster)/fd/\($0)")
            }
            #expect(!held.isEmpty, "the postmaster's descriptors were read")
            #expect(!held.contains(pipeInode), "the postmaster holds \(pipeInode)")
        }
    }
}
