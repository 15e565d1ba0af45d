import Foundation
import TestSupport
import Testing

/// `/healthz` (the process answers) and `/readyz` (the store is reachable and the standings
/// are loaded), as a load balancer or an orchestrator polls them: without a token, and never
/// showing one.
@Suite struct ServeHealthTests {
    /// Asks `path` every 50 ms until `done` holds for its answer, for at most `seconds`; the
    /// last answer.
    static func poll(
        _ serve: ServeProcess, _ path: String, seconds: Double, until done: (HTTPReply) -> Bool
    ) throws -> HTTPReply {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let reply = try HTTPClient.request("GET", serve.base + path)
            if done(reply) || Date() > deadline { return reply }
            usleep(50_000)
        }
    }

    static func error(_ reply: HTTPReply) -> String {
        (try? JSONSerialization.jsonObject(with: reply.body) as? [String: String])?["error"] ?? ""
    }

    /// While the PostgreSQL server is stopped, the process is healthy but not ready, and says
    /// why; once the server is back, ready again.
    @Test func readyOnlyWhileTheStoreIsReachable() throws {
        let cluster = try TemporaryCluster()
        let database = try SharedDatabase(in: cluster)
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: database.uri(), home: folder.path + "/home")
        let token = try #require(serve.token)

        let health = try HTTPClient.request("GET", serve.base + "/healthz")
        #expect(health.status == 200 && health.text == "{\"status\":\"up\"}")
        let ready = try Self.poll(serve, "/readyz", seconds: 10) { $0.status == 200 }
        #expect(ready.status == 200 && ready.text == "{\"status\":\"ready\"}", "\(ready.text)")

        try cluster.stopServer()
        let away = try Self.poll(serve, "/readyz", seconds: 30) { $0.status != 200 }
        #expect(away.status == 503, "\(away.text)")
        #expect(Self.error(away).hasPrefix("The store cannot be reached"), "\(away.text)")
        #expect(try HTTPClient.request("GET", serve.base + "/healthz").status == 200, "the process still runs")

        try cluster.startServer()
        let back = try Self.poll(serve, "/readyz", seconds: 60) { $0.status == 200 }
        #expect(back.status == 200, "\(back.text)")
        for reply in [health, ready, away, back] { #expect(!reply.text.contains(token)) }
        #expect(serve.stop() == 0)
    }

    /// A big store answers its first rows at once and loads the rest behind them: not ready
    /// until the last row is in, then ready.
    @Test func notReadyWhileTheStandingsLoad() throws {
        let folder = TemporaryDirectory()
        let teams = folder.path + "/teams.json"
        let generated = try ProgramRun(ServeProcess.binary, ["generate", "--teams", "100000", "--output", teams])
        #expect(generated.status == 0, "\(generated.stderr)")
        let imported = try worldcup(["import", teams], db: folder.store)
        #expect(imported.status == 0, "\(imported.stderr)")
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")

        let loading = try HTTPClient.request("GET", serve.base + "/readyz")
        #expect(loading.status == 503, "\(loading.text)")
        #expect(Self.error(loading).hasPrefix("The standings are still loading: "), "\(loading.text)")
        #expect(try HTTPClient.request("GET", serve.base + "/healthz").status == 200)
        let start = Date()
        let loaded = try Self.poll(serve, "/readyz", seconds: 120) { $0.status == 200 }
        print("serve health: \(Self.error(loading)) Ready \(Date().timeIntervalSince(start)) s later.")
        #expect(loaded.status == 200, "\(loaded.text)")
        #expect(try HTTPClient.request("POST", serve.base + "/readyz").status == 405)
        #expect(serve.stop() == 0)
    }
}
