import Foundation
import TestSupport
import Testing

/// `/metrics` in Prometheus' text format: the viewers following, the events sent to them, the
/// change sets and how long each took to reach the viewers, the snapshots built, the viewers cut
/// off, the store's connection and the requests refused by reason, counted as they happened;
/// kept to this machine unless told.
@Suite struct ServeMetricsTests {
    /// The value of the sample `name` (with its labels) in Prometheus' text.
    static func value(_ text: String, _ name: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
    }

    /// The sample `name` as serve's `/metrics` answers now.
    static func metric(_ serve: ServeProcess, _ name: String) throws -> Double? {
        value(try HTTPClient.request("GET", serve.base + "/metrics").text, name)
    }

    /// Asks for the sample `name` every 100 ms until it is `expected`, for at most `seconds`; the last value.
    static func poll(_ serve: ServeProcess, _ name: String, until expected: Double, seconds: Double) throws -> Double? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let value = try metric(serve, name)
            if value == expected || Date() > deadline { return value }
            usleep(100_000)
        }
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

    /// Three commits from other processes: three change sets, each timed from its report to
    /// its event in every viewer's queue; three viewers joining around them share one snapshot.
    @Test func metricsCountChangeSetsTheirDeliveryAndSnapshots() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let before = try HTTPClient.request("GET", serve.base + "/metrics").text
        #expect(Self.value(before, "worldcup_change_sets_total") == 0, "\(before)")
        #expect(Self.value(before, "worldcup_snapshots_built_total") == 0, "\(before)")
        #expect(Self.value(before, "worldcup_change_set_delivery_seconds_count") == 0, "\(before)")

        let viewers = try (0..<2).map { _ in try EventStream(port: port) }
        for viewer in viewers { #expect(try viewer.next().name == "snapshot") }
        for team in ["Japan", "Brazil", "Ghana"] {
            #expect(try worldcup(["win", team], db: folder.store).status == 0)
            for viewer in viewers { #expect(try viewer.next().data.contains(team)) }
        }
        // A viewer joining now gets the snapshot built for the first and the change sets since.
        let late = try EventStream(port: port)
        #expect(try late.next().name == "snapshot")

        let text = try HTTPClient.request("GET", serve.base + "/metrics").text
        #expect(Self.value(text, "worldcup_change_sets_total") == 3, "\(text)")
        #expect(text.contains("# TYPE worldcup_change_sets_total counter"))
        #expect(Self.value(text, "worldcup_snapshots_built_total") == 1, "\(text)")
        #expect(Self.value(text, "worldcup_change_set_delivery_seconds_count") == 3, "\(text)")
        #expect(text.contains("# TYPE worldcup_change_set_delivery_seconds histogram"))
        #expect(text.contains("(the store keeps no commit time)"), "the HELP text says where the time starts")
        let sum = try #require(Self.value(text, "worldcup_change_set_delivery_seconds_sum"))
        #expect(sum > 0 && sum < 1, "three change sets took \(sum) s to reach two viewers")
        #expect(Self.value(text, "worldcup_change_set_delivery_seconds_bucket{le=\"+Inf\"}") == 3, "\(text)")
        #expect(serve.stop() == 0)
    }

    /// A viewer that reads nothing while 2,000 change sets go by is cut off, and counted once;
    /// the viewer that reads all along is not.
    @Test func metricsCountViewersCutOff() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let port = try #require(URL(string: serve.viewerLink)?.port)
        #expect(try Self.metric(serve, "worldcup_viewers_cut_off_total") == 0)
        let stuck = try EventStream(port: port, receiveBuffer: 2_048)
        try ServeStalledViewersTests.commit(2_000, everyTeamIn: folder.store, seenBy: port)
        #expect(try Self.poll(serve, "worldcup_viewers_cut_off_total", until: 1, seconds: 10) == 1)
        // Commits close together may share a change set.
        let changeSets = try #require(try Self.metric(serve, "worldcup_change_sets_total"))
        #expect((1...2_000).contains(changeSets), "\(changeSets) change sets")
        withExtendedLifetime(stuck) {}
        #expect(serve.stop() == 0)
    }

    /// While the PostgreSQL server is stopped, the store's connection reads 0; once it is back, 1.
    @Test func metricsTellTheStoresConnection() throws {
        let cluster = try TemporaryCluster()
        let database = try SharedDatabase(in: cluster)
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: database.uri(), home: folder.path + "/home")
        #expect(try Self.metric(serve, "worldcup_store_connected") == 1)
        try cluster.stopServer()
        #expect(try Self.poll(serve, "worldcup_store_connected", until: 0, seconds: 30) == 0)
        try cluster.startServer()
        #expect(try Self.poll(serve, "worldcup_store_connected", until: 1, seconds: 60) == 1)
        #expect(serve.stop() == 0)
    }
}
