import Foundation
import TestSupport
import Testing

/// `serve` behind Debian's nginx with the repository's configuration: the event stream
/// passes through unbuffered, resumes with `Last-Event-ID`, scoring works, and with
/// `--behind-proxy` each client is known by the address nginx names, not one it writes itself.
@Suite struct ServeBehindNginxTests {
    static func error(_ reply: HTTPReply) -> String {
        (try? JSONSerialization.jsonObject(with: reply.body) as? [String: String])?["error"] ?? ""
    }

    @Test func winsReachViewersResumeAndScoreThroughNginx() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(
            db: folder.store, home: folder.path + "/home", arguments: ["--behind-proxy", "--taps-per-second", "2"])
        let token = try #require(serve.token)
        let nginx = try NginxProxy(
            servePort: try #require(URL(string: serve.viewerLink)?.port), folder: folder.path + "/nginx")
        defer { nginx.stop() }

        // The page and the health check come through.
        #expect(try HTTPClient.request("GET", nginx.base + "/").text.contains("Brazil"))
        #expect(try HTTPClient.request("GET", nginx.base + "/readyz").status == 200)

        // A win from a shell reaches a viewer through nginx at once, unbuffered; another viewer
        // stays throughout, the oracle of what was sent.
        let viewer = try EventStream(port: nginx.port)
        let staying = try EventStream(port: nginx.port)
        #expect(try viewer.next().name == "snapshot" && staying.next().name == "snapshot")
        let committed = Date()
        #expect(try worldcup(["win", "Brazil"], db: folder.store).status == 0)
        let first = try viewer.next()
        let latency = Date().timeIntervalSince(committed)
        print("serve behind nginx: a win reached the viewer \(Int(latency * 1000)) ms after `worldcup win` began")
        #expect(first.name == "change" && first.data.contains("Brazil"))
        #expect(latency < 2, "a buffered stream would hold the event")
        #expect(try staying.next() == first)
        viewer.close()

        // Scoring through nginx: the client is the address nginx names in X-Forwarded-For
        // (a header the client wrote is kept in front of it, and not believed).
        let brazil = try ServeScoringTests.teamID("Brazil", serve)
        func tap(from address: String, claiming forged: String? = nil) throws -> HTTPReply {
            var headers = ["Authorization": "Bearer \(token)", "Idempotency-Key": UUID().uuidString]
            if let forged { headers["X-Forwarded-For"] = forged }
            return try HTTPClient.request("POST", nginx.base + "/teams/\(brazil)/wins", headers: headers, from: address)
        }
        let second = try tap(from: "127.0.0.2")
        #expect(second.status == 200 && second.text == "{\"id\":\(brazil),\"wins\":2}", "\(second.text)")
        #expect(try tap(from: "127.0.0.2", claiming: "192.0.2.1").status == 200)
        let third = try tap(from: "127.0.0.2", claiming: "192.0.2.2")
        #expect(third.status == 429, "127.0.0.2 has had its 2 taps, whatever it claims: \(third.text)")
        #expect(third.header("Retry-After") != nil)
        #expect(try tap(from: "127.0.0.3").status == 200, "another client has a bound of its own")
        #expect(try serve.wins()["Brazil"] == 4)

        // The viewer cut before the taps comes back through nginx with its last id and gets
        // exactly what it missed, as the viewer that stayed got it.
        #expect(try worldcup(["win", "Japan"], db: folder.store).status == 0)
        var sent: [EventStream.Event] = []
        while !(sent.last?.data.contains("Japan") ?? false) { sent.append(try staying.next()) }
        let back = try EventStream(port: nginx.port, lastEventID: first.id)
        var resumed: [EventStream.Event] = []
        for _ in sent { resumed.append(try back.next()) }
        #expect(resumed == sent, "exactly the missed change sets, in order")
        #expect(resumed.allSatisfy { $0.name == "change" }, "change sets, not a snapshot")
        #expect(!nginx.errorLog.contains("[error]"), "\(nginx.errorLog)")
        nginx.stop()
        #expect(serve.stop() == 0)
    }

    /// Without `--behind-proxy`, X-Forwarded-For is anybody's to write: serve ignores it, and
    /// behind nginx every client is nginx.
    @Test func withoutBehindProxyTheHeaderIsIgnored() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(
            db: folder.store, home: folder.path + "/home", arguments: ["--taps-per-second", "1"])
        let token = try #require(serve.token)
        let nginx = try NginxProxy(
            servePort: try #require(URL(string: serve.viewerLink)?.port), folder: folder.path + "/nginx")
        defer { nginx.stop() }
        let brazil = try ServeScoringTests.teamID("Brazil", serve)
        func tap(_ base: String, from address: String, claiming forged: String? = nil) throws -> Int {
            var headers = ["Authorization": "Bearer \(token)", "Idempotency-Key": UUID().uuidString]
            if let forged { headers["X-Forwarded-For"] = forged }
            return try HTTPClient.request("POST", base + "/teams/\(brazil)/wins", headers: headers, from: address)
                .status
        }
        #expect(try tap(serve.base, from: "127.0.0.1", claiming: "192.0.2.1") == 200)
        #expect(
            try tap(serve.base, from: "127.0.0.1", claiming: "192.0.2.2") == 429, "the same client, whatever it claims")
        sleep(1)
        #expect(try tap(nginx.base, from: "127.0.0.2") == 200)
        #expect(try tap(nginx.base, from: "127.0.0.3") == 429, "through nginx, both are nginx")
        #expect(try serve.wins()["Brazil"] == 2)
        nginx.stop()
        #expect(serve.stop() == 0)
    }
}
