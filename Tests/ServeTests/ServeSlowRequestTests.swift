import Foundation
import TestSupport
import Testing

/// Slow requests (slowhttptest) against `serve`: a run of requests that never finish their head
/// (slowloris) or their body (R-U-Dead-Yet) stops no viewer, and none of its connections is held
/// for longer than the request's timeout.
@Suite struct ServeSlowRequestTests {
    @Test(arguments: [SlowHTTPTest.Attack.head, .body])
    func aSlowRequestRunStopsNoViewerAndHoldsNoConnection(_ attack: SlowHTTPTest.Attack) throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let token = try #require(serve.token)
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let brazil = try ServeScoringTests.teamID("Brazil", serve)
        let watching = try EventStream(port: port)
        #expect(try watching.next().name == "snapshot")

        // 300 connections opened in 3 s, each sending a little more of its head (a header line),
        // or of its body (to the route that scores), every 5 s and never the end; at most 40 s.
        let connections = 300
        let target = attack == .head ? serve.viewerLink : serve.base + "/teams/\(brazil)/wins"
        let run = try SlowHTTPTest(
            attack, url: target, connections: connections, rate: 100, interval: 5, length: 40,
            folder: folder.path + "/slowhttptest")
        defer { run.stop() }
        sleep(4)

        // While they are held: a new viewer joins, a win scored from a phone reaches both
        // viewers, and the page loads.
        let start = Date()
        let joining = try EventStream(port: port)
        #expect(try joining.next().name == "snapshot")
        let tap = try HTTPClient.request(
            "POST", serve.base + "/teams/\(brazil)/wins",
            headers: ["Authorization": "Bearer \(token)", "Idempotency-Key": UUID().uuidString])
        #expect(tap.status == 200, "\(tap.text)")
        for viewer in [joining, watching] { #expect(try viewer.next().data.contains("Brazil")) }
        let page = try HTTPClient.request("GET", serve.viewerLink)
        #expect(page.status == 200 && page.text.contains("Brazil"))
        let served = Date().timeIntervalSince(start)
        #expect(run.isRunning, "all of it happened during the run, in \(served) s")
        print("serve slow \(attack): joined, scored, received and loaded in \(served) s during the run")

        #expect(run.waitForEnd(seconds: 60), "slowhttptest ran past its 40 s")
        let report = try run.seconds()
        let peak = report.map(\.connected).max() ?? 0
        #expect(peak >= connections * 9 / 10, "the run held its connections at once: \(peak) at its peak")
        // It stops by itself once the server has closed every connection, before its time.
        #expect(run.output.contains("No open connections left"), "\(run.output)")
        let ended = try #require(run.endSecond, "\(run.output)")
        let firstClosed = report.first { $0.closed > 0 }?.second ?? -1
        print("serve slow \(attack): \(peak) connections held at once, closed from \(firstClosed) s, all by \(ended) s")
        #expect(ended <= 3 + 10 + 5 + 2, "opened for 3 s, closed 10 s after opening, seen within 5 s")
        #expect(report.allSatisfy { $0.serviceAvailable }, "slowhttptest's own probe was answered every second")
        #expect(try serve.wins()["Brazil"] == 1, "the slow bodies scored nothing")
        #expect(serve.stop() == 0)
    }
}
