import Foundation
import GRDB
import TestSupport
import Testing
import WorldCupModel
import WorldCupStores

/// Every score keeps its key (a receipt) so that the same score sent again counts once; an idle
/// SQLite store forgets the keys older than ``TeamStore/receiptsKept``, so that a store scored
/// from all evening does not grow by a row per key press for ever.
@Suite struct ScoreReceiptPruningTests {
    @Test func anIdleStoreForgetsOldKeysAndKeepsRecentOnes() throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        let ghana = try #require(try store.teamsInStandingsOrder().first { $0.teamName == "Ghana" }?.id)
        let (old, recent) = (ScoreKey(), ScoreKey())
        #expect(try store.addWin(teamID: ghana, key: old)?.wins == 1)
        #expect(try store.addWin(teamID: ghana, key: recent)?.wins == 2)
        let pool = try DatabasePool(path: directory.path + "/store.sqlite")
        let longAgo = Date().addingTimeInterval(-TeamStore.receiptsKept.seconds - 3600)
        try pool.write { db in
            try db.execute(
                sql: "UPDATE scoreReceipt SET recordedAt = ? WHERE key = ?",
                arguments: [longAgo.formatted(.iso8601), old.description])
        }
        func receipts() throws -> [String] {
            try pool.read { db in try String.fetchAll(db, sql: "SELECT key FROM scoreReceipt ORDER BY key") }
        }
        #expect(try receipts().count == 2)

        store.tidyWhileIdle()

        #expect(try receipts() == [recent.description], "the old key is forgotten, the recent one kept")
        #expect(try store.addWin(teamID: ghana, key: recent)?.wins == 2, "a recent key still counts once")
    }
}

extension Duration {
    /// The whole seconds of a duration, for date arithmetic.
    fileprivate var seconds: TimeInterval { TimeInterval(components.seconds) }
}
