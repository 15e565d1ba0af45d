import Foundation
import TestSupport
import Testing

/// Two `serve` processes following one PostgreSQL database, as behind a load balancer: nothing
/// is shared between them but the database, and a viewer on either sees every win.
@Suite struct ServeSeveralServersTests {
    @Test func twoServersOnOneDatabaseShowTheSameWinsAndCountATapOnce() throws {
        let store = try StoreKind.postgresql.makeStore()
        let first = try ServeProcess(db: store.db, home: store.folder.path + "/first")
        // Another machine: its own home, so it knows the token's digest only.
        let second = try ServeProcess(db: store.db, home: store.folder.path + "/second")
        let token = try #require(first.token)
        let viewers = try [first, second].map { serve in
            let stream = try EventStream(port: try #require(URL(string: serve.viewerLink)?.port))
            #expect(try stream.next().name == "snapshot")
            return stream
        }
        let brazil = try ServeScoringTests.teamID("Brazil", first)

        // A tap through the first, sent again to the second (the load balancer moved the phone):
        // one win, the same answer.
        let key = UUID().uuidString
        let once = try ServeScoringTests.win(first, team: brazil, key: key, token: token)
        let again = try ServeScoringTests.win(second, team: brazil, key: key, token: token)
        #expect(once.status == 200 && again.body == once.body)
        for viewer in viewers {
            let event = try viewer.next()
            #expect(event.name == "change" && ServeFanOutTests.brazilWins(in: event.data) == 1)
        }
        // A win from a shell reaches both, too.
        #expect(try worldcup(["win", "Brazil"], db: store.db).status == 0)
        for viewer in viewers { #expect(ServeFanOutTests.brazilWins(in: try viewer.next().data) == 2) }
        #expect(try first.wins()["Brazil"] == 2 && second.wins()["Brazil"] == 2)
        #expect(first.stop() == 0 && second.stop() == 0)
    }
}
