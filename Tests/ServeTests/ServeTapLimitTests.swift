import Foundation
import Synchronization
import TestSupport
import Testing

/// Taps limited per scorer: a burst from one phone (a stuck button, a script) gets 429s with
/// `Retry-After`, and the store counts exactly the taps that were accepted.
@Suite struct ServeTapLimitTests {
    /// Sends `taps` wins for Brazil from 4 threads at once, each with a key of its own; the
    /// answers, and how long the burst took.
    static func burst(_ serve: ServeProcess, taps: Int, token: String) throws -> ([HTTPReply], TimeInterval) {
        let brazil = try ServeScoringTests.teamID("Brazil", serve)
        let replies = Mutex<[HTTPReply]>([])
        let start = Date()
        DispatchQueue.concurrentPerform(iterations: 4) { lane in
            for _ in stride(from: lane, to: taps, by: 4) {
                guard let reply = try? ServeScoringTests.win(serve, team: brazil, key: UUID().uuidString, token: token)
                else { continue }
                replies.withLock { $0.append(reply) }
            }
        }
        return (replies.withLock { $0 }, Date().timeIntervalSince(start))
    }

    /// Brazil's wins as the store holds them (`worldcup list`, not the server).
    static func storedWins(_ db: String) throws -> Int {
        let entry = try listedStandings(db: db).flatMap { $0 }.first { $0.hasPrefix("Brazil=") }
        return try #require(entry.flatMap { Int($0.dropFirst("Brazil=".count)) })
    }

    @Test(arguments: [(StoreKind.sqlite, 2), (StoreKind.postgresql, nil)])
    func aBurstGets429sAndTheStoreCountsTheAcceptedTaps(_ kind: StoreKind, perSecond: Int?) throws {
        let store = try kind.makeStore()
        let serve = try ServeProcess(
            db: store.db, home: store.folder.path + "/home",
            arguments: perSecond.map { ["--taps-per-second", "\($0)"] } ?? [])
        let token = try #require(serve.token)
        let bound = perSecond ?? 10
        let taps = bound * 10
        let (replies, elapsed) = try Self.burst(serve, taps: taps, token: token)
        let accepted = replies.filter { $0.status == 200 }.count
        let refused = replies.filter { $0.status == 429 }
        print("serve taps: \(taps) taps in \(elapsed) s at \(bound) a second: \(accepted) accepted")
        #expect(replies.count == taps && accepted + refused.count == taps, "only 200 and 429")
        #expect(accepted >= bound, "a burst as long as the bound gets through")
        #expect(Double(accepted) <= Double(bound) * (1 + elapsed) + 1, "\(accepted) in \(elapsed) s")
        #expect(!refused.isEmpty)
        for reply in refused {
            #expect(Int(reply.header("Retry-After") ?? "").map { $0 >= 1 } == true, "\(reply.headers)")
            let error = (try? JSONSerialization.jsonObject(with: reply.body) as? [String: String])?["error"]
            #expect(
                error == "Too many taps from this phone: at most \(bound) a second. Nothing was changed; "
                    + "tap again in a moment.")
        }
        #expect(try Self.storedWins(store.db) == accepted, "the store counted exactly the accepted taps")

        // Once the wait it was told is over, the same phone scores again.
        let wait = try #require(refused.last.flatMap { $0.header("Retry-After") }.flatMap { Int($0) })
        sleep(UInt32(wait))
        let brazil = try ServeScoringTests.teamID("Brazil", serve)
        let later = try ServeScoringTests.win(serve, team: brazil, key: UUID().uuidString, token: token)
        #expect(later.status == 200, "\(later.text)")
        #expect(try Self.storedWins(store.db) == accepted + 1)
        #expect(serve.stop() == 0)
    }
}
