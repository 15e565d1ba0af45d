import Foundation
import TestSupport
import Testing

/// The bound on viewers (`--max-viewers`): past it a viewer gets 503 with `Retry-After`, a
/// viewer that leaves frees its place, and connections that never send a request take none
/// and are closed within seconds. On real sockets, and in Chromium.
@Suite struct ServeViewerLimitTests {
    /// The status of `GET /events` on a connection of its own, and the answer's first bytes
    /// (a 503's whole answer); the connection is closed after its head.
    static func eventsStatus(port: Int) throws -> (status: Int, answer: String) {
        let socket = try LoopbackSocket.connect(port: port, timeout: 10)
        defer { close(socket) }
        let request = "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
        _ = Array(request.utf8).withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: answer, as: UTF8.self).contains("\r\n\r\n") {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        usleep(50_000)
        let more = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if more > 0 { answer += buffer[0..<more] }
        let text = String(decoding: answer, as: UTF8.self)
        return (ServeLimitsTests.status(text) ?? 0, text)
    }

    /// Whether the server has closed this socket (a read finds its end), without waiting.
    static func closedByServer(_ socket: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(socket, &byte, 1, Int32(MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    @Test func pastTheBoundAViewerGets503UntilAPlaceIsFree() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(
            db: folder.store, home: folder.path + "/home", arguments: ["--max-viewers", "3"])
        let port = try #require(URL(string: serve.viewerLink)?.port)
        // Connections that never send a byte: no viewer's place, and closed within seconds.
        let idle = try (0..<20).map { _ in try LoopbackSocket.connect(port: port, timeout: 10) }
        defer { for socket in idle { close(socket) } }
        let opened = Date()

        var viewers = try (0..<3).map { _ in try EventStream(port: port) }
        for viewer in viewers { #expect(try viewer.next().name == "snapshot") }
        let refused = try Self.eventsStatus(port: port)
        #expect(refused.status == 503, "\(refused.answer)")
        #expect(refused.answer.contains("\r\nretry-after: 5\r\n") || refused.answer.contains("\r\nRetry-After: 5\r\n"))
        #expect(
            refused.answer.contains(
                "This server already has 3 viewers, as many as it takes (--max-viewers): try again in a few seconds."),
            "\(refused.answer)")
        // The others are served as before.
        #expect(try worldcup(["win", "Brazil"], db: folder.store).status == 0)
        for viewer in viewers { #expect(try viewer.next().data.contains("Brazil")) }
        #expect(try HTTPClient.request("GET", serve.base + "/standings.json").status == 200)

        // A viewer that leaves frees its place within seconds, with nothing to send it meanwhile.
        viewers.removeLast().close()
        let left = Date()
        let deadline = left.addingTimeInterval(15)
        var again = try Self.eventsStatus(port: port)
        while again.status != 200 && Date() < deadline {
            usleep(100_000)
            again = try Self.eventsStatus(port: port)
        }
        #expect(again.status == 200, "\(again.answer)")
        print("serve viewers: a place freed \(Date().timeIntervalSince(left)) s after its viewer left")

        // The silent connections were closed by the server within seconds of opening.
        let bound = 15.0
        while !idle.allSatisfy(Self.closedByServer) && Date().timeIntervalSince(opened) < bound { usleep(100_000) }
        let elapsed = Date().timeIntervalSince(opened)
        print("serve viewers: 20 silent connections closed after \(elapsed) s")
        #expect(idle.allSatisfy(Self.closedByServer), "silent connections still open after \(Int(elapsed)) s")
        #expect(serve.stop() == 0)
    }

    /// A page refused for want of room says the server is away, asks again by itself a few
    /// seconds later, and is live once a place is free.
    @Test func aRefusedPageComesInOnceAPlaceIsFree() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(
            db: folder.store, home: folder.path + "/home", arguments: ["--max-viewers", "1"])
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let holder = try EventStream(port: port)
        #expect(try holder.next().name == "snapshot")
        let browser = try WebDriver()
        try browser.open(serve.viewerLink)
        let away = "return document.body.classList.contains('away');"
        #expect(try browser.wait(timeout: 10) { try browser.run(away) as? Bool == true })
        #expect(try PageRows.read(browser).ready == false)
        holder.close()
        #expect(try browser.wait(timeout: 30) { try PageRows.read(browser).ready })
        #expect(try browser.run(away) as? Bool == false)
        #expect(try worldcup(["win", "Japan"], db: folder.store).status == 0)
        #expect(try browser.wait { try PageRows.read(browser).row(named: "Japan")?.wins == 1 })
        #expect(serve.stop() == 0)
    }
}
