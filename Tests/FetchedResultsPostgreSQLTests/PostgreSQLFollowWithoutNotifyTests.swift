import FetchedResults
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// Following a table adds nothing to a writer's commit that makes commits wait for each
    /// other: the triggers write the history and send no `NOTIFY` (whose commit takes a lock for
    /// the whole cluster through its WAL flush), and followers look at the history on a pace of
    /// their own.
    @Suite struct PostgreSQLFollowWithoutNotifyTests {
        /// The channel earlier versions' triggers notified.
        static let oldChannel = "fetched_results"

        /// Whether `listener`, listening on the old channel, received anything (a statement
        /// first, so that whatever the server sent has arrived).
        static func notified(_ listener: PostgreSQLConnection) throws -> Bool {
            try listener.execute("SELECT 1")
            return !(try listener.notifications()).isEmpty
        }

        @Test func writesThroughTheFeedSendNoNotification() throws {
            let (conninfo, writer) = try itemDatabase()
            let listener = try PostgreSQLConnection(conninfo)
            try listener.execute("LISTEN \(Self.oldChannel)")
            let position = try PostgreSQLChangeFeed.currentPosition(in: writer)
            try writer.execute("INSERT INTO item (name) VALUES ('a'), ('b')")
            try writer.execute("UPDATE item SET name = 'B' WHERE id = 2")
            try writer.execute("UPDATE item SET id = 10 WHERE id = 1")
            try writer.execute("DELETE FROM item WHERE id = 2")
            #expect(try Self.notified(listener) == false, "no NOTIFY in a writing transaction")
            let read = try PostgreSQLChangeFeed.changes(since: position, in: writer)
            #expect(read.rowIDs == ["item": [1, 2, 10]], "the history has every row")
            try writer.execute("TRUNCATE item")
            #expect(try Self.notified(listener) == false)
        }

        /// A database whose feed an earlier version installed: its statement trigger sent a
        /// `NOTIFY` per writing statement. Installing again takes it away, with the shared
        /// functions nothing uses any more.
        @Test func installingAgainReplacesAFeedThatNotified() throws {
            let conninfo = try freshDatabase()
            let owner = try PostgreSQLConnection(conninfo)
            try owner.execute("CREATE TABLE item (id bigserial PRIMARY KEY, name text NOT NULL)")
            try PostgreSQLChangeFeed.install(on: "item", keyColumn: "id", in: owner)
            try EarlierChangeFeed.install(on: "item", owner)
            let listener = try PostgreSQLConnection(conninfo)
            try listener.execute("LISTEN \(Self.oldChannel)")
            try owner.execute("INSERT INTO item (name) VALUES ('before')")
            try #require(try Self.notified(listener), "the earlier feed notified")

            try PostgreSQLChangeFeed.install(on: "item", keyColumn: "id", in: owner)
            let position = try PostgreSQLChangeFeed.currentPosition(in: owner)
            try owner.execute("INSERT INTO item (name) VALUES ('after')")
            #expect(try Self.notified(listener) == false, "installed again: no NOTIFY")
            #expect(try PostgreSQLChangeFeed.changes(since: position, in: owner).rowIDs == ["item": [2]])
            let leftOver = try owner.execute(
                """
                SELECT string_agg(proname, ', ') FROM pg_proc
                WHERE proname IN ('fetched_results_notify', 'fetched_results_record_row')
                """
            ).scalar
            #expect(leftOver == nil, "the earlier functions are gone: \(leftOver ?? "")")
        }
    }
}
