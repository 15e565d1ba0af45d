import Foundation
import TestSupport
import Testing

/// serve against its OpenAPI document, deploy/openapi.yaml: schemathesis fuzzes every operation
/// but the event stream, and every answer must be one the document allows (status, content
/// type, headers, body; 405 with `Allow` for other methods; 401 or 403 without the token);
/// then the answers only a state of the server gives (a full bound of viewers, a reused key, a
/// read-only server, a PostgreSQL server stopped…) and the event stream's first bytes are
/// checked the same way, with schemathesis' own checks (Tests/OpenAPI/answers.py); and every
/// answer the document lists must have been seen.
@Suite struct ServeOpenAPITests {
    /// The checks schemathesis runs on each answer: all of them (status, content type, headers
    /// and body as documented, no 5xx, 405 and `Allow` for other methods, 401 or 403 without the
    /// token, 4xx for what the document does not allow…) but `positive_data_acceptance`, which
    /// wants a 2xx for every request the document allows: a key schemathesis sends again for
    /// another team is rightly refused (422), as the document says.
    static let checks = ["--checks", "all", "--exclude-checks", "positive_data_acceptance"]

    @Test func serveAnswersOnlyAsItsOpenAPIDocumentSays() throws {
        let documented = try Self.documentedAnswers(["list"])
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let token = try #require(serve.token)

        // The event stream is left out: schemathesis reads each answer whole, and a stream that
        // does not end while its viewer follows would hold every request to its timeout. It is
        // checked below, from its first bytes. Requests go at 9 a second, within the bound on
        // taps, or most scores would be refused and their logic left untested (429s are
        // provoked below).
        let har = folder.path + "/schemathesis.har"
        let started = Date()
        let run = try ProgramRun(
            try Self.tool("schemathesis"),
            [
                "run", Self.document, "--url", serve.base, "--header", "Authorization: Bearer \(token)",
                "--exclude-path", "/events",
                "--max-examples", "20", "--seed", "49", "--workers", "1", "--request-timeout", "10",
                "--rate-limit", "9/s", "--report", "har", "--report-har-path", har,
            ] + Self.checks,
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": folder.path, "NO_COLOR": "1"],
            in: folder.path)
        print("serve openapi: schemathesis ran \(Int(Date().timeIntervalSince(started))) s")
        #expect(run.status == 0, "\(run.stdout.suffix(6_000))\(run.stderr.suffix(2_000))")
        var seen = try Self.documentedAnswers(["seen", har])
        #expect(seen.isSubset(of: documented), "\(seen.subtracting(documented))")

        sleep(1)  // A second for the bound on taps that schemathesis used up.
        try Self.check(Self.scoring(token: token), on: serve, seen: &seen)
        let limited = try ServeProcess(
            db: folder.store, home: folder.path + "/home", arguments: ["--taps-per-second", "1"])
        try Self.check(Self.overTheBoundOnTaps(token: token), on: limited, seen: &seen)
        #expect(limited.stop() == 0)
        sleep(1)
        let key = UUID().uuidString
        try Self.setWins("9223372036854775807", ofTeam: 4, in: folder.store)
        try Self.check(
            [
                Self.win("4", key: UUID().uuidString, token: token, expected: 409),
                Self.win("3", key: key, token: token, expected: 200),
            ],
            on: serve, seen: &seen)
        // Taken back by another hand (the terminal's undo, say) before the phone's undo.
        try Self.setWins("0", ofTeam: 3, in: folder.store)
        try Self.check([Self.undo("3", key: key, token: token, expected: 409)], on: serve, seen: &seen)
        try Self.check(Self.limits(documented), on: serve, seen: &seen)
        let stream = try Self.check([Self.eventStream(expected: 200)], on: serve, seen: &seen)
        #expect(stream.first?.body.hasPrefix("retry: 1000\n\nid: ") == true, "\(stream.first?.body ?? "")")
        #expect(stream.first?.body.contains("\nevent: snapshot\ndata: {") == true)

        let readOnly = try ServeProcess(
            db: folder.store, home: folder.path + "/home",
            arguments: ["--read-only", "--max-viewers", "1", "--behind-proxy"])
        let port = try #require(URL(string: readOnly.viewerLink)?.port)
        let viewer = try EventStream(port: port)
        #expect(try viewer.next().name == "snapshot")
        try Self.check(Self.refusedByAReadOnlyFullServer(token: token), on: readOnly, seen: &seen)
        viewer.close()
        #expect(readOnly.stop() == 0)

        try Self.checkStoreAway(seen: &seen)

        // A store that fails, its tables gone (as a wrong file or a disk error would leave it).
        let broken = try ProgramRun(
            "/usr/bin/sqlite3",
            [folder.store, "ALTER TABLE scoreReceipt RENAME TO scoreReceiptGone; ALTER TABLE team RENAME TO teamGone"])
        try #require(broken.status == 0, "\(broken.stderr)")
        try Self.check(
            [
                Request(method: "GET", path: "/standings.json", target: "/standings.json", expected: 500),
                Self.win("1", key: UUID().uuidString, token: token, expected: 500),
                Self.undo("1", key: UUID().uuidString, token: token, expected: 500),
            ], on: serve, seen: &seen)

        let missing = documented.subtracting(seen)
        #expect(missing.isEmpty, "documented answers never seen: \(missing.sorted { $0.description < $1.description })")
        #expect(serve.stop() == 0)
    }

    /// On PostgreSQL with its server stopped: not ready, and the standings and scores refused.
    static func checkStoreAway(seen: inout Set<DocumentedAnswer>) throws {
        let cluster = try TemporaryCluster()
        let database = try SharedDatabase(in: cluster)
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: database.uri(), home: folder.path + "/home")
        let token = try #require(serve.token)
        try cluster.stopServer()
        let away = try ServeHealthTests.poll(serve, "/readyz", seconds: 30) { $0.status == 503 }
        #expect(away.status == 503, "\(away.text)")
        try check(
            [
                Request(method: "GET", path: "/readyz", target: "/readyz", expected: 503),
                Request(method: "GET", path: "/standings.json", target: "/standings.json", expected: 503),
                win("1", key: UUID().uuidString, token: token, expected: 503),
                undo("1", key: UUID().uuidString, token: token, expected: 503),
            ], on: serve, seen: &seen)
        #expect(serve.stop() == 0)
    }

    static func setWins(_ wins: String, ofTeam team: Int, in store: String) throws {
        let run = try ProgramRun("/usr/bin/sqlite3", [store, "UPDATE team SET wins = \(wins) WHERE id = \(team)"])
        try #require(run.status == 0, "\(run.stderr)")
    }

    static func win(_ team: String, key: String, token: String?, expected: Int?) -> Request {
        var headers = ["Idempotency-Key": key]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        return Request(
            method: "POST", path: "/teams/{team}/wins", target: "/teams/\(team)/wins", headers: headers,
            expected: expected)
    }

    static func undo(_ team: String, key: String, token: String?, expected: Int?) -> Request {
        Request(
            method: "DELETE", path: "/teams/{team}/wins/{key}", target: "/teams/\(team)/wins/\(key)",
            headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:], expected: expected)
    }

    /// A win and its undo; a key reused for another team; an undo of a win nobody counted; the
    /// token missing or wrong.
    static func scoring(token: String) -> [Request] {
        let key = UUID().uuidString
        return [
            win("1", key: key, token: token, expected: 200),
            win("2", key: key, token: token, expected: 422),
            undo("1", key: key, token: token, expected: 200),
            win("1", key: "\"\"", token: token, expected: 400),
            win("1", key: key, token: nil, expected: 401),
            undo("1", key: key, token: nil, expected: 401),
            win("1", key: key, token: "not-the-token", expected: 403),
            undo("1", key: key, token: "not-the-token", expected: 403),
            win("abc", key: UUID().uuidString, token: token, expected: 404),
            undo("1", key: UUID().uuidString, token: token, expected: 404),
        ]
    }

    /// More scores than a bound of one a second takes: the first is taken (its answer whatever
    /// it is), the next two refused with 429, however slowly a busy machine sends them within
    /// that second.
    static func overTheBoundOnTaps(token: String) -> [Request] {
        [
            undo("1", key: UUID().uuidString, token: token, expected: nil),
            undo("1", key: UUID().uuidString, token: token, expected: 429),
            win("1", key: UUID().uuidString, token: token, expected: 429),
        ]
    }

    /// Every operation with a body over 64 KB (413) and a target over 2,048 bytes (414).
    static func limits(_ documented: Set<DocumentedAnswer>) -> [Request] {
        let operations = Set(documented.map { [$0.method, $0.path] })
        return operations.sorted { $0.joined() < $1.joined() }.flatMap { operation -> [Request] in
            let target = operation[1].replacingOccurrences(of: "{team}", with: "1")
                .replacingOccurrences(of: "{key}", with: "k")
            return [
                Request(
                    method: operation[0], path: operation[1], target: target,
                    body: String(repeating: "x", count: 65 * 1024), expected: 413),
                Request(
                    method: operation[0], path: operation[1],
                    target: target + "?" + String(repeating: "x", count: 2_100), expected: 414),
            ]
        }
    }

    static func eventStream(expected: Int) -> Request {
        Request(method: "GET", path: "/events", target: "/events", stream: true, expected: expected)
    }

    /// On a read-only server that follows as many viewers as it takes: a viewer more, scoring,
    /// and the metrics asked from elsewhere (a client the proxy in front names).
    static func refusedByAReadOnlyFullServer(token: String) -> [Request] {
        let bearer = ["Authorization": "Bearer \(token)"]
        return [
            eventStream(expected: 503),
            Request(method: "GET", path: "/scorer", target: "/scorer", headers: bearer, expected: 403),
            win("1", key: UUID().uuidString, token: token, expected: 403),
            undo("1", key: UUID().uuidString, token: token, expected: 403),
            Request(
                method: "GET", path: "/metrics", target: "/metrics", headers: ["X-Forwarded-For": "203.0.113.5"],
                expected: 403),
        ]
    }
}
