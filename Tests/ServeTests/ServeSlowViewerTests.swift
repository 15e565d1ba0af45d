import Foundation
import Synchronization
import TestSupport
import Testing

/// A viewer that reads nothing while thousands of change sets go by: the others get every one,
/// and the stalled viewer is cut off once its bounded buffer is full (its browser comes back
/// with `Last-Event-ID`), rather than kept in memory without bound.
@Suite struct ServeSlowViewerTests {
    static let changeSets = 3_000

    @Test func aStalledViewerIsCutOffAndHoldsNobodyBack() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let stalled = try EventStream(port: port, receiveBuffer: 2_048)
        let live = try EventStream(port: port)
        #expect(try live.next().name == "snapshot")

        // Wins one commit at a time, from sqlite3, until the live viewer has had enough
        // change sets (commits close together may share one).
        let received = Atomic<Int>(0)
        let reader = Thread {
            while received.load(ordering: .relaxed) < Self.changeSets, (try? live.next()) != nil {
                received.add(1, ordering: .relaxed)
            }
        }
        reader.start()
        let updates = String(
            repeating: "UPDATE team SET wins = wins + 1 WHERE id = 1;\n.shell sleep 0.002\n", count: 100)
        var rounds = 0
        while received.load(ordering: .relaxed) < Self.changeSets && rounds < 200 {
            let run = try ProgramRun("/bin/sh", ["-c", "printf '%s' \"$0\" | sqlite3 '\(folder.store)'", updates])
            try #require(run.status == 0, "\(run.stderr)")
            rounds += 1
        }
        #expect(received.load(ordering: .relaxed) >= Self.changeSets, "the live viewer got every change set")

        // The stalled viewer reads now: what was buffered for it, then the end of its stream.
        var got = 0
        var cutOff = false
        while got <= Self.changeSets + 1 {
            do {
                _ = try stalled.next()
                got += 1
            } catch is EventStream.Ended {
                cutOff = true
                break
            }
        }
        #expect(cutOff, "cut off after \(got) events")
        #expect(got < Self.changeSets, "it got only what its buffers held: \(got)")
        print(
            "serve slow viewer: cut off after \(got) events; the live viewer got \(received.load(ordering: .relaxed))")
        #expect(serve.stop() == 0)
    }
}
