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

        // Named by an id the server cannot place: the standings afresh, as the snapshot built
        // for the first viewers (once, not once per viewer) and every change set since — the
        // same bytes the others got.
        let lost = try EventStream(port: port, lastEventID: "nowhere")
        #expect(try lost.next() == snapshot)
        var caughtUp: [EventStream.Event] = []
        for _ in 0...sent.count { caughtUp.append(try lost.next()) }
        #expect(caughtUp == sent + [next])
        #expect(serve.stop() == 0)
    }

    /// Change sets serve keeps for viewers that come back (its log's bound by count).
    static let loggedChangeSets = 4_096

    @Test func aViewerFarBehindGetsASnapshotEqualToTheStore() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let cut = try EventStream(port: port)
        let snapshot = try cut.next()
        cut.close()

        // Every team +1 per commit (32 changes), each commit its own change set, until a viewer
        // that stayed saw more change sets than the log keeps, and 100,000 changes went by.
        let staying = try EventStream(port: port)
        #expect(try staying.next().name == "snapshot")
        let received = EventTally(reading: staying)
        let commits = String(repeating: "UPDATE team SET wins = wins + 1;\n.shell sleep 0.002\n", count: 500)
        var changes = 0
        while received.count <= Self.loggedChangeSets || changes < 100_000 {
            let run = try ProgramRun("/bin/sh", ["-c", "printf '%s' \"$0\" | sqlite3 '\(folder.store)'", commits])
            try #require(run.status == 0, "\(run.stderr)")
            changes += 500 * 32
            try #require(changes < 1_000_000, "the staying viewer got \(received.count) change sets")
        }
        // Serve has sent the last commit once the staying viewer gets nothing more for a second.
        var seen = -1
        while seen != received.count {
            seen = received.count
            sleep(1)
        }

        let back = try EventStream(port: port, lastEventID: snapshot.id)
        let fresh = try back.next()
        #expect(fresh.name == "snapshot", "\(changes) changes behind: a snapshot, not \(fresh.name)")
        #expect(fresh.data.contains("\"first\":true") && fresh.data.contains("\"last\":true"))
        #expect(try Self.standings(inSnapshot: fresh.data) == listedStandings(db: folder.store))
        #expect(fresh.id == received.last?.id, "the snapshot is at the staying viewer's position")
        staying.close()
        #expect(serve.stop() == 0)
    }

    /// A one-part snapshot's sections as `listedStandings` gives them: zone, then "name=wins".
    static func standings(inSnapshot data: String) throws -> [[String]] {
        let object = try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any] ?? [:]
        return (object["sections"] as? [[String: Any]] ?? []).map { section in
            [section["name"] as? String ?? ""]
                + (section["rows"] as? [[Any]] ?? []).map { "\($0[1] as? String ?? "")=\($0[2] as? Int ?? -1)" }
        }
    }
}
