import Foundation
import TestSupport
import Testing

/// `Idempotency-Key` as the IETF draft writes it (a structured-field string) and bare, any key
/// a client chooses up to 255 characters, on both stores.
@Suite struct ServeIdempotencyKeyTests {
    static func win(_ serve: ServeProcess, team: Int, key: String, token: String) throws -> HTTPReply {
        try HTTPClient.request(
            "POST", serve.base + "/teams/\(team)/wins",
            headers: ["Authorization": "Bearer \(token)", "Idempotency-Key": key])
    }

    /// More scores than a phone's default bound come in one go here: the bound is not what
    /// these tests check.
    static let arguments = ["--taps-per-second", "100"]

    static func error(_ reply: HTTPReply) -> String {
        (try? JSONSerialization.jsonObject(with: reply.body) as? [String: String])?["error"] ?? ""
    }

    @Test(arguments: StoreKind.allCases)
    func quotedAndBareKeysOfAnyShapeCountOnce(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home", arguments: Self.arguments)
        let token = try #require(serve.token)
        let brazil = try ServeScoringTests.teamID("Brazil", serve)
        let germany = try ServeScoringTests.teamID("Germany", serve)

        // Each pair names one key twice: quoted as the draft writes it, then bare (or quoted
        // again when the key has characters a bare key may not have).
        let uuid = UUID().uuidString.lowercased()
        let long = String(repeating: "k", count: 255)
        let pairs = [
            ("\"\(uuid)\"", uuid), ("\"order_42.tap~1\"", "order_42.tap~1"), ("\"\(long)\"", long),
            ("\"tap 1/\\\"phone\\\" \\\\ x\"", "\"tap 1/\\\"phone\\\" \\\\ x\""),
        ]
        for (index, (first, again)) in pairs.enumerated() {
            let answer = try Self.win(serve, team: brazil, key: first, token: token)
            #expect(answer.status == 200, "\(first): \(answer.text)")
            #expect(answer.text == "{\"id\":\(brazil),\"wins\":\(index + 1)}", "\(first)")
            let repeated = try Self.win(serve, team: brazil, key: again, token: token)
            #expect(repeated.status == 200 && repeated.body == answer.body, "\(again): \(repeated.text)")
        }
        #expect(try serve.wins()["Brazil"] == pairs.count)

        // A key used for another team stays refused, in either form.
        for key in ["order_42.tap~1", "\"order_42.tap~1\""] {
            let reused = try Self.win(serve, team: germany, key: key, token: token)
            #expect(reused.status == 422, "\(key): \(reused.text)")
        }

        // A win with a key that is no UUID is taken back by that key, percent-encoded.
        let encoded = try #require("tap 1/\"phone\" \\ x".addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let undo = try HTTPClient.request(
            "DELETE", serve.base + "/teams/\(brazil)/wins/\(encoded)", headers: ["Authorization": "Bearer \(token)"])
        #expect(undo.text == "{\"id\":\(brazil),\"wins\":\(pairs.count - 1)}", "\(undo.text)")
        #expect(try serve.wins()["Brazil"] == pairs.count - 1)
        #expect(try serve.wins().values.reduce(0, +) == pairs.count - 1)
        #expect(serve.stop() == 0)
    }

    @Test func keysOverTheBoundOrMalformedGetAClear400() throws {
        let store = try StoreKind.sqlite.makeStore()
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home", arguments: Self.arguments)
        let token = try #require(serve.token)
        let brazil = try ServeScoringTests.teamID("Brazil", serve)
        let cases: [(key: String, error: String)] = [
            (String(repeating: "k", count: 256), "The Idempotency-Key is 256 characters long: at most 255 are taken."),
            ("\"\(String(repeating: "k", count: 300))\"", "The Idempotency-Key is 300 characters long"),
            ("\"unclosed", "The Idempotency-Key is not a well-formed quoted string"),
            ("\"a\"b", "The Idempotency-Key is not a well-formed quoted string"),
            ("\"bad \\n escape\"", "The Idempotency-Key is not a well-formed quoted string"),
            ("two words", "The Idempotency-Key has characters a bare key may not have"),
            ("a,b", "The Idempotency-Key has characters a bare key may not have"),
            ("clé", "The Idempotency-Key has characters a bare key may not have"),
            ("\"\"", "The Idempotency-Key is empty"),
        ]
        for (key, error) in cases {
            let reply = try Self.win(serve, team: brazil, key: key, token: token)
            #expect(reply.status == 400, "\(key.prefix(20)): \(reply.text)")
            #expect(Self.error(reply).hasPrefix(error), "\(key.prefix(20)): \(reply.text)")
        }
        let twice = try Self.exchange(
            "POST /teams/\(brazil)/wins HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                + "Authorization: Bearer \(token)\r\nIdempotency-Key: one\r\nIdempotency-Key: two\r\n"
                + "Content-Length: 0\r\n\r\n",
            port: try #require(URL(string: serve.viewerLink)?.port))
        #expect(twice.hasPrefix("HTTP/1.1 400"), "\(twice)")
        #expect(twice.contains("Send one Idempotency-Key header, not 2."), "\(twice)")
        #expect(try serve.wins().values.reduce(0, +) == 0)
        #expect(serve.stop() == 0)
    }

    /// One request as written (two headers of one name, which `HTTPClient` cannot send), and
    /// the whole answer, read until the server closes.
    static func exchange(_ request: String, port: Int) throws -> String {
        let socket = try LoopbackSocket.connect(port: port, timeout: 10)
        defer { close(socket) }
        _ = Array(request.utf8).withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let count = recv(socket, &buffer, buffer.count, 0), count > 0 { answer += buffer[0..<count] }
        return String(decoding: answer, as: UTF8.self)
    }
}
