import Foundation
import TestSupport
import Testing

/// What `serve` answers at its limits, on a real socket: a chunked body too big, a team id
/// that is a number but no team, a request whose headers never end.
@Suite struct ServeLimitsTests {
    /// The status code of an HTTP answer's first line.
    static func status(_ answer: String) -> Int? {
        answer.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
    }

    @Test func aChunkedBodyOver64KBGets413() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let token = try #require(serve.token)
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let head =
            "POST /teams/1/wins HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
            + "Idempotency-Key: \(UUID().uuidString)\r\nTransfer-Encoding: chunked\r\n\r\n"
        let chunk = "2000\r\n" + String(repeating: "a", count: 0x2000) + "\r\n"
        for (chunks, expected) in [(9, 413), (1, 200)] {
            // 9 chunks of 8 KB: 72 KB, over the bound; one is within it (and scores).
            let request = Array((head + String(repeating: chunk, count: chunks) + "0\r\n\r\n").utf8)
            let answer = RawHTTP.send(request, port: port)
            #expect(Self.status(answer) == expected, "\(chunks * 8) KB chunked: \(answer.prefix(200))")
            if expected == 413 { #expect(answer.contains("64 KB"), "\(answer.prefix(400))") }
        }
        #expect(try serve.wins().values.reduce(0, +) == 1)
        #expect(serve.stop() == 0)
    }

    @Test func aTeamIdThatIsANumberButNoTeamIsSaidToBeNoTeam() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let token = try #require(serve.token)
        let headers = ["Authorization": "Bearer \(token)", "Idempotency-Key": UUID().uuidString]
        for (id, message) in [
            ("-1", "No team has the id -1."), ("0", "No team has the id 0."),
            ("99999", "No team has the id 99999."),
            ("abc", "No team has the id \"abc\": team ids are whole numbers."),
            ("1.5", "No team has the id \"1.5\": team ids are whole numbers."),
        ] {
            let reply = try HTTPClient.request("POST", serve.base + "/teams/\(id)/wins", headers: headers)
            #expect(reply.status == 404, "\(id): \(reply.status) \(reply.text)")
            let error = (try? JSONSerialization.jsonObject(with: reply.body) as? [String: String])?["error"]
            #expect(error == message, "\(id)")
        }
        #expect(try serve.wins().values.reduce(0, +) == 0)
        #expect(serve.stop() == 0)
    }

    /// A connection that never finishes its request's headers, at once or a byte a second, is
    /// closed within seconds, not held for minutes; the server goes on answering.
    @Test func aRequestThatNeverFinishesItsHeadersIsClosedWithinSeconds() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let bound = 30.0
        for trickle in [false, true] {
            let socket = try LoopbackSocket.connect(port: port, timeout: trickle ? 1 : bound)
            defer { close(socket) }
            let start = Date()
            var closed = false
            func send(_ text: String) -> Bool {
                Array(text.utf8).withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    > 0
            }
            func closedByServer() -> Bool {
                var byte: UInt8 = 0
                let count = recv(socket, &byte, 1, 0)
                return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            }
            _ = send("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            while !closed && Date().timeIntervalSince(start) < bound {
                // Trickling: a byte of the header a second (the receive times out after 1 s).
                if trickle && !send("a") {
                    closed = true
                    break
                }
                closed = closedByServer()
            }
            let elapsed = Date().timeIntervalSince(start)
            let state = closed ? "closed" : "still open"
            print("serve limits: unfinished headers\(trickle ? ", a byte a second," : "") \(state) after \(elapsed) s")
            #expect(closed, "\(trickle ? "trickling " : "")headers still held after \(Int(elapsed)) s")
        }
        #expect(try HTTPClient.request("GET", serve.base + "/standings.json").status == 200)
        #expect(serve.stop() == 0)
    }
}
