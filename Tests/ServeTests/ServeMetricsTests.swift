import Foundation
import TestSupport
import Testing

/// `/metrics` in Prometheus' text format: the viewers following, the events sent to them and
/// the requests refused by reason, counted as they happened; kept to this machine unless told.
@Suite struct ServeMetricsTests {
    /// The value of the sample `name` (with its labels) in Prometheus' text.
    static func value(_ text: String, _ name: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
    }

    @Test func metricsCountViewersEventsAndRefusals() throws {
        let folder = TemporaryDirectory()
        let arguments = ["--max-viewers", "2", "--taps-per-second", "1", "--behind-proxy"]
        var serve = try ServeProcess(db: folder.store, home: folder.path + "/home", arguments: arguments)
        let token = try #require(serve.token)
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let viewers = try (0..<2).map { _ in try EventStream(port: port) }
        for viewer in viewers { #expect(try viewer.next().name == "snapshot") }
        #expect(try ServeViewerLimitTests.eventsStatus(port: port).status == 503)
        let brazil = try ServeScoringTests.teamID("Brazil", serve)
        #expect(try ServeScoringTests.win(serve, team: brazil, key: UUID().uuidString, token: token).status == 200)
        #expect(try ServeScoringTests.win(serve, team: brazil, key: UUID().uuidString, token: token).status == 429)
        #expect(try ServeScoringTests.win(serve, team: brazil, key: UUID().uuidString, token: nil).status == 401)
        for viewer in viewers { #expect(try viewer.next().data.contains("Brazil")) }
        #expect(try worldcup(["win", "Japan"], db: folder.store).status == 0)
        for viewer in viewers { #expect(try viewer.next().data.contains("Japan")) }

        let reply = try HTTPClient.request("GET", serve.base + "/metrics")
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = reply.text
        #expect(Self.value(text, "worldcup_viewers") == 2, "\(text)")
        let sent = Self.value(text, "worldcup_events_sent_total")
        #expect(sent == Double(2 + 2 * 2), "two snapshots, and two change sets to each viewer")
        for reason in ["too_many_requests", "service_unavailable", "unauthorized"] {
            #expect(Self.value(text, "worldcup_refused_requests_total{reason=\"\(reason)\"}") == 1, "\(text)")
        }
        #expect(text.contains("# TYPE worldcup_refused_requests_total counter"))
        #expect(!text.contains(token))

        // Kept to this machine: a client elsewhere, named by the proxy in front, is refused.
        let outside = try HTTPClient.request(
            "GET", serve.base + "/metrics", headers: ["X-Forwarded-For": "203.0.113.5"])
        #expect(outside.status == 403)
        #expect(outside.text.contains("The metrics are kept to this machine"), "\(outside.text)")
        #expect(!outside.text.contains("worldcup_viewers"))
        #expect(serve.stop() == 0)

        serve = try ServeProcess(
            db: folder.store, home: folder.path + "/home", arguments: arguments + ["--open-metrics"])
        let open = try HTTPClient.request(
            "GET", serve.base + "/metrics", headers: ["X-Forwarded-For": "203.0.113.5"])
        #expect(open.status == 200 && Self.value(open.text, "worldcup_viewers") == 0, "\(open.text)")
        #expect(serve.stop() == 0)
    }
}
