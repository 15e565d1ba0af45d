import Foundation
import TestSupport
import Testing

/// `serve`'s request log on stderr: a line per request with its status and time, `--log-level`,
/// and nothing of a token.
@Suite struct ServeRequestLogTests {
    /// What `serve` has written on stderr so far.
    static func log(_ serve: ServeProcess) -> String {
        (try? String(contentsOfFile: serve.outputPath + ".err", encoding: .utf8)) ?? ""
    }

    /// The log's request lines (`METHOD PATH STATUS TIME ms`), waited for until `count` have come
    /// (a line is written once its answer is, a moment after the client has read it).
    static func requestLines(_ serve: ServeProcess, count: Int) -> [String] {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let lines = log(serve).split(separator: "\n").map(String.init).filter {
                $0.wholeMatch(of: /.* info worldcup serve: \[WorldCupServer\] [A-Z]+ \S+ \d{3} \d+\.\d ms/) != nil
            }
            if lines.count >= count || Date() > deadline { return lines }
            usleep(20_000)
        }
    }

    @Test func eachRequestIsALineWithItsStatusAndTime() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let port = try #require(URL(string: serve.viewerLink)?.port)
        #expect(try HTTPClient.request("GET", serve.base + "/standings.json").status == 200)
        #expect(try HTTPClient.request("GET", serve.base + "/nowhere").status == 404)
        // An event stream's line comes when it ends, with how long it lasted.
        let viewer = try EventStream(port: port)
        #expect(try viewer.next().name == "snapshot")
        usleep(300_000)
        viewer.close()
        let lines = Self.requestLines(serve, count: 3)
        #expect(lines.count == 3, "\(Self.log(serve))")
        #expect(lines.contains { $0.contains("] GET /standings.json 200 ") }, "\(lines)")
        #expect(lines.contains { $0.contains("] GET /nowhere 404 ") }, "\(lines)")
        let stream = try #require(lines.first { $0.contains("] GET /events 200 ") }, "\(lines)")
        let milliseconds = try #require(Double(stream.split(separator: " ").dropLast().last ?? ""))
        #expect(milliseconds >= 300, "the stream lasted 300 ms or more: \(stream)")
        #expect(serve.stop() == 0)
    }

    @Test func atLevelErrorNoRequestIsLogged() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(
            db: folder.store, home: folder.path + "/home", arguments: ["--log-level", "error"])
        #expect(try HTTPClient.request("GET", serve.base + "/standings.json").status == 200)
        #expect(try HTTPClient.request("GET", serve.base + "/nowhere").status == 404)
        #expect(serve.stop() == 0)
        #expect(Self.log(serve).isEmpty, "\(Self.log(serve))")
    }

    @Test func aLevelThatIsNoneIsAUsageErrorThatNamesThem() throws {
        let folder = TemporaryDirectory()
        let result = try worldcup(["serve", "--listen", "127.0.0.1:0", "--log-level", "loud"], db: folder.store)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("worldcup: the value 'loud' is invalid for '--log-level"), "\(result.stderr)")
        for level in ["trace", "debug", "info", "notice", "warning", "error", "critical"] {
            #expect(result.stderr.contains("\n  - \(level)\n"), "\(result.stderr)")
        }
    }

    /// The token a scorer sends (`Authorization`), or puts where it should not (a query, a
    /// fragment sent raw, a header of its own), is never written: the lines have the path alone.
    /// A target with a control character never reaches the log: the HTTP parser refuses it.
    @Test func aScorersTokenNeverReachesTheLog() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let token = try #require(serve.token)
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let tap = try HTTPClient.request(
            "POST", serve.base + "/teams/1/wins",
            headers: ["Authorization": "Bearer \(token)", "Idempotency-Key": UUID().uuidString])
        #expect(tap.status == 200, "\(tap.text)")
        #expect(try HTTPClient.request("GET", serve.base + "/?scorer=\(token)").status == 200)
        #expect(
            try HTTPClient.request("GET", serve.base + "/standings.json", headers: ["X-Token": token]).status == 200)
        let fragment = RawHTTP.send(Array("GET /#scorer=\(token) HTTP/1.1\r\nHost: x\r\n\r\n".utf8), port: port)
        #expect(ServeLimitsTests.status(fragment) == 404, "\(fragment.prefix(200))")
        let control = RawHTTP.send(Array("GET /a\u{1B}[2Jb HTTP/1.1\r\nHost: x\r\n\r\n".utf8), port: port)
        #expect(ServeLimitsTests.status(control) == 400, "\(control.prefix(200))")
        let lines = Self.requestLines(serve, count: 4)
        #expect(serve.stop() == 0)
        let log = Self.log(serve)
        #expect(!log.contains(token), "\(log)")
        #expect(!log.localizedCaseInsensitiveContains("bearer"), "\(log)")
        #expect(lines.contains { $0.contains("] POST /teams/1/wins 200 ") }, "\(lines)")
        #expect(lines.contains { $0.contains("] GET / 200 ") }, "\(lines)")
        #expect(lines.contains { $0.contains("] GET /standings.json 200 ") }, "\(lines)")
        #expect(lines.contains { $0.contains("] GET /#… 404 ") }, "\(lines)")
        #expect(lines.count == 4, "\(lines)")
        #expect(!log.contains("\u{1B}"), "\(log)")
    }
}
