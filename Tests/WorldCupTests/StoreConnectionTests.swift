import GRDB
import TestSupport
import Testing

@testable import WorldCupStores

/// The connections of a store keep a small page cache (the scoreboard's memory at a million
/// teams), readers and the writer alike.
@Suite struct StoreConnectionTests {
    @Test func everyConnectionKeepsASmallPageCache() throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        let pragma = "PRAGMA cache_size"
        #expect(try store.pool.write { try Int.fetchOne($0, sql: pragma) } == -512)
        #expect(try store.pool.read { try Int.fetchOne($0, sql: pragma) } == -512)
    }
}
