import Foundation
import TestSupport
import Testing

/// Random and malformed requests, straight on a TCP socket (an HTTP client would refuse to
/// send most of them): the server never stops, answers each with a 4xx, and changes nothing.
@Suite struct ServeFuzzTests {
    static let requests = 10_000

    @Test func tenThousandMalformedRequestsGetA4xxAndChangeNothing() throws {
        let seed = ProcessInfo.processInfo.environment["WORLDCUP_FUZZ_SEED"].flatMap { UInt64($0) } ?? 20_250_617
        print("serve fuzz: seed \(seed) (WORLDCUP_FUZZ_SEED=\(seed) repeats this run)")
        let store = try StoreKind.sqlite.makeStore()
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home")
        let token = try #require(serve.token)
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let before = try serve.standingsJSON()
        var generator = MalformedRequests(random: SplitMix64(seed: seed), token: token)
        let requests = (0..<Self.requests).map { _ in generator.next() }
        let outcomes = Mutex<[String: Int]>([:])
        let wrong = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { lane in
            for index in stride(from: lane, to: requests.count, by: 4) {
                let answer = RawHTTP.send(requests[index], port: port)
                let status = answer.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init) ?? "none"
                outcomes.withLock { $0[status, default: 0] += 1 }
                guard answer.hasPrefix("HTTP/1.1 4") else {
                    let sent = String(decoding: requests[index].prefix(120), as: UTF8.self)
                    wrong.withLock { $0.append("#\(index) \(sent) → \(answer.prefix(60))") }
                    continue
                }
            }
        }
        print("serve fuzz: statuses \(outcomes.withLock { $0 }.sorted { $0.key < $1.key })")
        let failures = wrong.withLock { $0 }
        #expect(failures.isEmpty, "\(failures.count) answers not 4xx, such as \(failures.prefix(5))")
        #expect(serve.process.isRunning)
        #expect(try serve.standingsJSON() == before)
        #expect(serve.stop() == 0)
    }
}

/// Requests that no correct server may carry out: broken syntax, unknown places, no or a wrong
/// token, a right token with a bad team or key, oversized parts.
struct MalformedRequests {
    var random: SplitMix64
    let token: String

    mutating func pick<T>(_ choices: [T]) -> T { choices[Int(random.next() % UInt64(choices.count))] }
    mutating func number(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(random.next() % UInt64(range.count))
    }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) } }

    mutating func text(_ count: Int, from alphabet: String) -> String {
        let characters = Array(alphabet)
        return String((0..<count).map { _ in characters[Int(random.next() % UInt64(characters.count))] })
    }

    mutating func badTeam() -> String {
        let noise = text(number(1...30), from: "0123456789abc%./-_~")
        // Digits alone could name a real team: the noise always holds something else.
        return pick([
            "abc", "-1", "1.5", "0x10", "", "99999999", "9999999999999999999999", "%31", "1%00", "１",
            noise.allSatisfy(\.isNumber) ? noise + "x" : noise,
        ])
    }

    mutating func next() -> [UInt8] {
        let uuid = UUID().uuidString
        let bearer = "Authorization: Bearer \(token)\r\n"
        switch number(0...11) {
        case 0:
            return bytes(number(1...300)) + Array("\r\n\r\n".utf8)
        case 1:
            // Never a method the server answers with a 2xx.
            let method = "X" + text(number(0...11), from: "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
            return Array("\(method) /\(text(number(0...20), from: "abc/")) HTTP/1.1\r\n\r\n".utf8)
        case 2:
            let path = "/x" + text(number(0...200), from: "abcXYZ019/%.-_~!$&'()*+,;=:@?#[]")
            return Array("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        case 3:
            return Array("GET /\(String(repeating: "a", count: number(2_100...20_000))) HTTP/1.1\r\n\r\n".utf8)
        case 4:
            let auth = pick([
                "", "Authorization: Bearer\r\n", "Authorization: Basic eDp5\r\n",
                "Authorization: Bearer \(text(number(1...80), from: "abcdefABC0123-_"))\r\n",
                "Authorization: bearer \(token)x\r\n",
            ])
            return Array("POST /teams/\(number(1...40))/wins HTTP/1.1\r\n\(auth)Idempotency-Key: \(uuid)\r\n\r\n".utf8)
        case 5:
            // Any key is taken, quoted or bare, up to 255 characters: these are none.
            let key = pick([
                "", "Idempotency-Key: \r\n", "Idempotency-Key: \"\"\r\n", "Idempotency-Key: \"\(uuid)\r\n",
                "Idempotency-Key: \(uuid) x\r\n", "Idempotency-Key: \(text(256, from: "0123456789abcdefg"))\r\n",
                "Idempotency-Key: \"\(text(number(1...40), from: "ab 09"))\\\"\r\n",
                "Idempotency-Key: \(uuid)\r\nIdempotency-Key: \(uuid)\r\n",
            ])
            return Array("POST /teams/\(number(1...40))/wins HTTP/1.1\r\n\(bearer)\(key)\r\n".utf8)
        case 6:
            return Array("POST /teams/\(badTeam())/wins HTTP/1.1\r\n\(bearer)Idempotency-Key: \(uuid)\r\n\r\n".utf8)
        case 7:
            let length = number(65_537...10_000_000)
            let head = "POST /teams/1/wins HTTP/1.1\r\n\(bearer)Idempotency-Key: \(uuid)\r\n"
            return Array("\(head)Content-Length: \(length)\r\n\r\n".utf8)
        case 8:
            let headers = (0..<number(101...300)).map { "X-\($0): \(text(10, from: "abc"))\r\n" }.joined()
            return Array("GET /x HTTP/1.1\r\n\(headers)\r\n".utf8)
        case 9:
            let line = pick([
                "Bad Header\r\n", "X: \u{7}\r\n", ": empty\r\n", "X-Big: \(String(repeating: "b", count: 9_000))\r\n",
                "Content-Length: -1\r\n", "Content-Length: abc\r\n",
                "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
            ])
            return Array("GET /x HTTP/1.1\r\n\(line)\r\n".utf8)
        case 10:
            let chunks = pick(["zz\r\nabc\r\n0\r\n\r\n", "-5\r\nabc\r\n", "ffffffffffffffff\r\nabc\r\n"])
            let head = "POST /teams/\(badTeam())/wins HTTP/1.1\r\n\(bearer)Transfer-Encoding: chunked\r\n"
            return Array("\(head)\r\n\(chunks)".utf8)
        default:
            let method = pick(["PUT", "PATCH", "HEAD", "OPTIONS", "TRACE"])
            let path = pick(["/", "/events", "/standings.json", "/app.js", "/teams/1/wins", "/scorer"])
            return Array("\(method) \(path) HTTP/1.1\r\n\(bearer)\r\n".utf8)
        }
    }
}

/// One request on its own connection, the answer's first bytes read until the server closes.
enum RawHTTP {
    static func send(_ request: [UInt8], port: Int) -> String {
        guard let descriptor = try? LoopbackSocket.connect(port: port, timeout: 10) else { return "no connection" }
        defer { close(descriptor) }
        _ = request.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(descriptor, Int32(SHUT_WR))
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while answer.count < 256 {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
