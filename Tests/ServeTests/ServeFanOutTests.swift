import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

/// Many viewers on one `serve` following PostgreSQL: every viewer gets every change set, the
/// same bytes in the same order, and the server holds a few connections whatever their number.
@Suite struct ServeFanOutTests {
    static let viewers = 1_000
    static let wins = 100

    @Test func aThousandViewersGetEveryWinOnceInOrderOverAFewConnections() throws {
        let store = try StoreKind.postgresql.makeStore()
        let database = try #require(store.database)
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home")
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let streams = try (0..<Self.viewers).map { _ in try EventStream(port: port) }
        for stream in streams { #expect(try stream.next().name == "snapshot") }

        // 100 wins for Brazil, each its own `worldcup win`, four at a time.
        DispatchQueue.concurrentPerform(iterations: 4) { lane in
            for _ in stride(from: lane, to: Self.wins, by: 4) { _ = try? worldcup(["win", "Brazil"], db: store.db) }
        }
        #expect(try database.wins()["Brazil"] == Self.wins)
        // Every connection serve opens is open now: the follower's, the writes', the reads'.
        _ = try serve.standingsJSON()
        let admin = try database.connect()
        let connections = try admin.execute(
            """
            SELECT count(*) FROM pg_stat_activity
            WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
            """
        ).scalar
        #expect(Int(connections ?? "") ?? 99 <= 5, "serve's connections: \(connections ?? "?")")

        // Each viewer's events until Brazil shows 100: Brazil's wins only ever go up, and every
        // viewer got the same events as the first.
        var first: [EventStream.Event]?
        for (index, stream) in streams.enumerated() {
            var events: [EventStream.Event] = []
            var brazil = 0
            while brazil < Self.wins {
                let event = try stream.next()
                events.append(event)
                let shown = Self.brazilWins(in: event.data)
                #expect(shown > brazil, "viewer \(index): Brazil \(shown) after \(brazil)")
                brazil = max(brazil, shown)
            }
            if let first {
                #expect(events == first, "viewer \(index) got the same change sets as viewer 0")
            } else {
                first = events
            }
            stream.close()
        }
        print(
            "serve fan-out: \(Self.viewers) viewers, \(first?.count ?? 0) change sets for \(Self.wins) wins, "
                + "\(connections ?? "?") server connections")
        #expect(serve.stop() == 0)
    }

    /// Brazil's wins in a change event's rows.
    static func brazilWins(in data: String) -> Int {
        guard let range = data.range(of: #""name":"Brazil","zone":"[^"]*","wins":[0-9]+"#, options: .regularExpression)
        else { return 0 }
        return Int(data[range].split(separator: ":").last ?? "") ?? 0
    }
}
