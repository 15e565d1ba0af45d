import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// The history that lets controllers follow a table: every committed change once, in any
    /// commit order, never a rolled-back one.
    @Suite struct PostgreSQLChangeFeedTests {
        @Test func insertsUpdatesDeletesAndKeyChangesAreRead() throws {
            let (_, connection) = try itemDatabase()
            var position = try PostgreSQLChangeFeed.currentPosition(in: connection)
            try connection.execute("INSERT INTO item (name) VALUES ('a'), ('b'), ('c')")
            var read = try PostgreSQLChangeFeed.changes(since: position, in: connection)
            #expect(read.rowIDs == ["item": [1, 2, 3]])
            position = read.position
            try connection.execute("UPDATE item SET name = 'B' WHERE id = 2")
            try connection.execute("UPDATE item SET id = 10 WHERE id = 3")
            try connection.execute("DELETE FROM item WHERE id = 1")
            read = try PostgreSQLChangeFeed.changes(since: position, in: connection)
            #expect(read.rowIDs == ["item": [1, 2, 3, 10]], "old and new ids of a re-keyed row")
            position = read.position
            #expect(
                try PostgreSQLChangeFeed.changes(since: position, in: connection).rowIDs.isEmpty,
                "each change is read once")

            try connection.execute("BEGIN")
            try connection.execute("INSERT INTO item (name) VALUES ('rolled back')")
            try connection.execute("ROLLBACK")
            #expect(
                try PostgreSQLChangeFeed.changes(since: position, in: connection).rowIDs.isEmpty,
                "never a rolled-back change")

            try connection.execute("TRUNCATE item")
            read = try PostgreSQLChangeFeed.changes(since: position, in: connection)
            #expect(read.truncatedTables == ["item"])
        }

        /// The trap the design is built around: a transaction that took its number first commits
        /// last. A reader that remembers the highest number it read (here the rows' ids, from a
        /// sequence) loses it; the snapshot position does not.
        @Test func aSlowCommitterIsNotLost() throws {
            let (conninfo, reader) = try itemDatabase()
            let slow = try PostgreSQLConnection(conninfo), fast = try PostgreSQLConnection(conninfo)
            let start = try PostgreSQLChangeFeed.currentPosition(in: reader)

            try slow.execute("BEGIN")
            try slow.execute("INSERT INTO item (name) VALUES ('slow')")  // id 1
            try fast.execute("INSERT INTO item (name) VALUES ('fast')")  // id 2, committed
            let first = try PostgreSQLChangeFeed.changes(since: start, in: reader)
            #expect(first.rowIDs == ["item": [2]])
            let highestNumberRead = try reader.execute("SELECT max(row_id) FROM fetched_results_history").scalar

            try slow.execute("COMMIT")
            let second = try PostgreSQLChangeFeed.changes(since: first.position, in: reader)
            #expect(second.rowIDs == ["item": [1]], "the slow transaction's row, read after it committed")
            // The naive feed, for contrast: nothing above the highest number it had read.
            let naive = try reader.execute(
                "SELECT row_id FROM fetched_results_history WHERE row_id > $1", [highestNumberRead]
            ).rows
            #expect(naive.isEmpty, "a sequence-number position would have lost row 1")
        }

        @Test func aReaderBehindThePruningIsToldToRefetch() throws {
            let (_, connection) = try itemDatabase()
            let old = try PostgreSQLChangeFeed.currentPosition(in: connection)
            try connection.execute("INSERT INTO item (name) VALUES ('a')")
            let recent = try PostgreSQLChangeFeed.changes(since: old, in: connection).position
            try connection.execute("INSERT INTO item (name) VALUES ('b')")
            try PostgreSQLChangeFeed.prune(before: recent, in: connection)
            let fromRecent = try PostgreSQLChangeFeed.changes(since: recent, in: connection)
            #expect(
                !fromRecent.isBehindPruning && fromRecent.rowIDs == ["item": [2]],
                "a reader at the horizon loses nothing")
            #expect(
                try PostgreSQLChangeFeed.changes(since: old, in: connection).isBehindPruning,
                "an older one must refetch")
            #expect(
                try connection.execute("SELECT count(*) FROM fetched_results_history").scalar == "1",
                "the old rows are gone")
        }

        /// Pruning by count keeps the newest changed rows, so a reader that had read up to them
        /// goes on without a refetch, and tells one further behind to refetch.
        @Test func pruningKeepsTheNewestChangedRows() throws {
            let (_, connection) = try itemDatabase()
            func insert(_ names: [String]) throws {
                for name in names { try connection.execute("INSERT INTO item (name) VALUES ($1)", [name]) }
            }
            func historyRows() throws -> [String] {
                try connection.execute("SELECT row_id FROM fetched_results_history ORDER BY row_id").rows.map {
                    $0[0] ?? "NULL"
                }
            }
            let start = try PostgreSQLChangeFeed.currentPosition(in: connection)
            try insert(["a", "b", "c"])
            let afterThree = try PostgreSQLChangeFeed.changes(since: start, in: connection).position
            try insert(["d", "e"])

            try PostgreSQLChangeFeed.prune(keeping: 2, in: connection)
            #expect(try historyRows() == ["4", "5"])
            let fromAfterThree = try PostgreSQLChangeFeed.changes(since: afterThree, in: connection)
            #expect(!fromAfterThree.isBehindPruning && fromAfterThree.rowIDs == ["item": [4, 5]])
            #expect(try PostgreSQLChangeFeed.changes(since: start, in: connection).isBehindPruning)

            try PostgreSQLChangeFeed.prune(keeping: 10, in: connection)
            #expect(try historyRows() == ["4", "5"], "fewer rows than kept: nothing goes")
            #expect(try !PostgreSQLChangeFeed.changes(since: afterThree, in: connection).isBehindPruning)

            let now = try PostgreSQLChangeFeed.currentPosition(in: connection)
            try PostgreSQLChangeFeed.prune(keeping: 0, in: connection)
            #expect(try historyRows().isEmpty)
            #expect(try PostgreSQLChangeFeed.changes(since: afterThree, in: connection).isBehindPruning)
            #expect(try !PostgreSQLChangeFeed.changes(since: now, in: connection).isBehindPruning)
        }

        /// Many writers on their own connections, committing in random order: the rows read
        /// through the feed, position after position, are exactly the rows written (the oracle:
        /// the table itself).
        @Test func concurrentWritersInRandomCommitOrderLoseNothing() throws {
            let seed: UInt64 = 20261123
            print("PostgreSQLChangeFeedTests seed \(seed)")
            var random = SplitMix64(seed: seed)
            let (conninfo, reader) = try itemDatabase()
            let writers = try (0..<6).map { _ in try PostgreSQLConnection(conninfo) }
            var open = Set<Int>()
            var position = try PostgreSQLChangeFeed.currentPosition(in: reader)
            var seen = Set<Int64>()
            for _ in 0..<300 {
                let writer = Int.random(in: 0..<writers.count, using: &random)
                if open.contains(writer) {
                    try writers[writer].execute(Bool.random(using: &random) ? "COMMIT" : "ROLLBACK")
                    open.remove(writer)
                } else {
                    try writers[writer].execute("BEGIN")
                    try writers[writer].execute("INSERT INTO item (name) VALUES ($1)", ["w\(writer)"])
                    open.insert(writer)
                }
                if Int.random(in: 0..<4, using: &random) == 0 {
                    let read = try PostgreSQLChangeFeed.changes(since: position, in: reader)
                    seen.formUnion(read.rowIDs["item"] ?? [])
                    position = read.position
                }
            }
            for writer in open { try writers[writer].execute("COMMIT") }
            seen.formUnion(try PostgreSQLChangeFeed.changes(since: position, in: reader).rowIDs["item"] ?? [])
            let stored = Set(try reader.execute("SELECT id FROM item").rows.compactMap { $0[0].flatMap(Int64.init) })
            #expect(
                seen == stored,
                "missing \(stored.subtracting(seen).sorted()), extra \(seen.subtracting(stored).sorted())")
        }
    }
}
