import Foundation
import TestSupport
import Testing

/// Scoring over HTTP, as the page does it: tokens, idempotency keys, `--read-only`,
/// `--rotate-tokens`, on both stores.
@Suite(.serialized) struct ServeScoringTests {
    static func win(_ serve: ServeProcess, team: Int, key: String, token: String?) throws -> HTTPReply {
        var headers = ["Idempotency-Key": key]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        return try HTTPClient.request("POST", serve.base + "/teams/\(team)/wins", headers: headers)
    }

    static func teamID(_ name: String, _ serve: ServeProcess) throws -> Int {
        let html = try HTTPClient.request("GET", serve.viewerLink).text
        let marker = try #require(html.range(of: "<span class=\"name\">\(name)</span>"))
        let start = try #require(html[..<marker.lowerBound].range(of: "data-id=\"", options: .backwards))
        return try #require(Int(html[start.upperBound...].prefix { $0 != "\"" }))
    }

    @Test(arguments: StoreKind.allCases)
    func aRetriedTapCountsOnceAndGetsTheFirstAnswer(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let home = store.folder.path + "/home"
        var serve = try ServeProcess(db: store.db, home: home)
        let token = try #require(serve.token)
        #expect(token.count >= 22, "at least 128 bits")
        let brazil = try Self.teamID("Brazil", serve)
        let key = UUID().uuidString
        let first = try Self.win(serve, team: brazil, key: key, token: token)
        #expect(first.status == 200)
        #expect(first.text == "{\"id\":\(brazil),\"wins\":1}")
        let again = try Self.win(serve, team: brazil, key: key, token: token)
        #expect(again.status == first.status && again.body == first.body)
        #expect(try serve.wins()["Brazil"] == 1)
        // Across a restart the key is still known (it is in the store), and so is the token.
        #expect(serve.stop() == 0)
        serve = try ServeProcess(db: store.db, home: home)
        #expect(serve.token == token)
        let afterRestart = try Self.win(serve, team: brazil, key: key, token: token)
        #expect(afterRestart.body == first.body)
        #expect(try serve.wins()["Brazil"] == 1)
        // The same key for another team is refused, and changes nothing.
        let germany = try Self.teamID("Germany", serve)
        #expect(try Self.win(serve, team: germany, key: key, token: token).status == 422)
        // A new key is a new win; its undo, twice, takes one back.
        let second = UUID().uuidString
        #expect(try Self.win(serve, team: brazil, key: second, token: token).text == "{\"id\":\(brazil),\"wins\":2}")
        let undo = serve.base + "/teams/\(brazil)/wins/\(second)"
        let auth = ["Authorization": "Bearer \(token)"]
        #expect(try HTTPClient.request("DELETE", undo, headers: auth).text == "{\"id\":\(brazil),\"wins\":1}")
        #expect(try HTTPClient.request("DELETE", undo, headers: auth).text == "{\"id\":\(brazil),\"wins\":1}")
        #expect(
            try HTTPClient.request(
                "DELETE", serve.base + "/teams/\(brazil)/wins/\(UUID().uuidString)",
                headers: auth
            ).status == 404)
        #expect(try serve.wins()["Brazil"] == 1)
        #expect(try serve.wins().values.reduce(0, +) == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func malformedScoresAreRefusedAndChangeNothing(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home")
        let token = try #require(serve.token)
        let brazil = try Self.teamID("Brazil", serve)
        let auth = ["Authorization": "Bearer \(token)"]
        let cases: [(String, String, [String: String], Data?, Int)] = [
            ("POST", "/teams/\(brazil)/wins", auth, nil, 400),
            ("POST", "/teams/\(brazil)/wins", auth.merging(["Idempotency-Key": "not a key"]) { $1 }, nil, 400),
            ("POST", "/teams/abc/wins", auth.merging(["Idempotency-Key": UUID().uuidString]) { $1 }, nil, 404),
            ("POST", "/teams/999999/wins", auth.merging(["Idempotency-Key": UUID().uuidString]) { $1 }, nil, 404),
            ("POST", "/teams/-1/wins", auth.merging(["Idempotency-Key": UUID().uuidString]) { $1 }, nil, 404),
            (
                "POST", "/teams/\(brazil)/wins", auth.merging(["Idempotency-Key": UUID().uuidString]) { $1 },
                Data(count: 65 * 1024), 413
            ),
            ("GET", "/teams/\(brazil)/wins", auth, nil, 405),
            ("PUT", "/standings.json", [:], nil, 405),
            // QUERY (a safe method with a body, being standardised) is refused as the others are.
            ("QUERY", "/standings.json", [:], nil, 405),
            ("QUERY", "/teams/\(brazil)/wins", auth, nil, 405),
            ("GET", "/" + String(repeating: "a", count: 3000), [:], nil, 414),
            ("GET", "/nothing-here", [:], nil, 404),
        ]
        for (method, path, headers, body, status) in cases {
            let reply = try HTTPClient.request(method, serve.base + path, headers: headers, body: body)
            #expect(reply.status == status, "\(method) \(path.prefix(40)): \(reply.text)")
            if reply.status >= 400 { #expect(reply.text.hasPrefix("{\"error\":"), "\(reply.text)") }
        }
        #expect(try serve.wins().values.reduce(0, +) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func rotatingTokensRetiresTheOldLinkAndReadOnlyServesViewersOnly(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let home = store.folder.path + "/home"
        var serve = try ServeProcess(db: store.db, home: home)
        let old = try #require(serve.token)
        #expect(serve.stop() == 0)
        serve = try ServeProcess(db: store.db, home: home, arguments: ["--rotate-tokens"])
        let new = try #require(serve.token)
        #expect(new != old)
        let brazil = try Self.teamID("Brazil", serve)
        #expect(try Self.win(serve, team: brazil, key: UUID().uuidString, token: old).status == 403)
        #expect(try Self.win(serve, team: brazil, key: UUID().uuidString, token: new).status == 200)
        #expect(serve.stop() == 0)
        // Another machine's serve (no token file of its own) accepts the same token without
        // being able to print it.
        serve = try ServeProcess(db: store.db, home: store.folder.path + "/elsewhere")
        #expect(serve.scorerLink == nil)
        #expect(serve.output.contains("Scorers: use the scorer link printed when its token was made"))
        #expect(try Self.win(serve, team: brazil, key: UUID().uuidString, token: new).status == 200)
        #expect(serve.stop() == 0)
        serve = try ServeProcess(db: store.db, home: home, arguments: ["--read-only"])
        #expect(serve.scorerLink == nil)
        #expect(try Self.win(serve, team: brazil, key: UUID().uuidString, token: new).status == 403)
        #expect(try serve.wins()["Brazil"] == 2)
        // The store keeps a digest only: the token itself is in no table.
        if let database = store.database {
            let digest = try database.connect().execute("SELECT encode(digest, 'hex') FROM serve_token").scalar
            #expect(digest?.count == 64 && !(digest ?? "").contains(new))
        }
    }

    @Test func tokenFilesAreTheUsersOnly() throws {
        let store = try StoreKind.sqlite.makeStore()
        let home = store.folder.path + "/home"
        let serve = try ServeProcess(db: store.db, home: home)
        let folder = home + "/data/worldcup/serve-tokens"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(files.count == 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + files[0])
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try String(contentsOfFile: folder + "/" + files[0], encoding: .utf8) == (serve.token ?? "") + "\n")
    }
}
