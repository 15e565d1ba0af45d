import Foundation
import TestSupport
import Testing

/// A viewer that lost its stream comes back with `Last-Event-ID` (as `EventSource` does by
/// itself) and gets exactly the change sets it missed, named by the change feed's position;
/// one the server cannot place gets a snapshot.
@Suite struct ServeResumeTests {
    @Test(arguments: StoreKind.allCases)
    func aViewerThatComesBackGetsExactlyWhatItMissed(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home")
        let port = try #require(URL(string: serve.viewerLink)?.port)

        // The viewer that will be cut: its snapshot, then gone.
        let cut = try EventStream(port: port)
        let snapshot = try cut.next()
        #expect(snapshot.name == "snapshot" && snapshot.data.contains("\"last\":true"))
        cut.close()

        // A viewer that stays: the oracle for what was sent meanwhile.
        let staying = try EventStream(port: port)
        #expect(try staying.next().id == snapshot.id, "nothing happened in between")
        #expect(try worldcup(["win", "Brazil"], db: store.db).status == 0)
        #expect(try worldcup(["win", "Japan", "--count", "2"], db: store.db).status == 0)
        #expect(try worldcup(["add", "--name", "Wenderland", "--zone", "Internets"], db: store.db).status == 0)
        var sent: [EventStream.Event] = []
        while !sent.contains(where: { $0.data.contains("Wenderland") }) { sent.append(try staying.next()) }
        #expect(sent.allSatisfy { $0.name == "change" })
        #expect(Set(sent.map(\.id)).count == sent.count && !sent.map(\.id).contains(snapshot.id), "ids are unique")

        let back = try EventStream(port: port, lastEventID: snapshot.id)
        var resumed: [EventStream.Event] = []
        for _ in sent { resumed.append(try back.next()) }
        #expect(resumed == sent, "exactly the missed change sets, in order, the same bytes")
        // Caught up: the next event is the next change set, for both.
        #expect(try worldcup(["win", "Ghana"], db: store.db).status == 0)
        let next = try back.next()
        #expect(next.name == "change" && next.data.contains("Ghana"))
        #expect(try staying.next() == next)

        // Named by an id the server cannot place: the standings afresh.
        let lost = try EventStream(port: port, lastEventID: "nowhere")
        let fresh = try lost.next()
        #expect(fresh.name == "snapshot" && fresh.id == next.id)
        #expect(fresh.data.contains("\"Wenderland\"") && fresh.data.contains("\"first\":true"))
        #expect(serve.stop() == 0)
    }
}
