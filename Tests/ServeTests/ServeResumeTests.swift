import Foundation
import TestSupport
import Testing

/// A viewer that lost its stream comes back with `Last-Event-ID` (as `EventSource` does by
/// itself) and gets exactly the change sets it missed, named by the change feed's position;
/// one the server cannot place gets a snapshot.
@Suite struct ServeResumeTests {
    @Test(arguments: StoreKind.allCases)
    func aViewerThatComesBackGetsExactlyWhatItMissed(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home")
        let port = try #require(URL(string: serve.viewerLink)?.port)

        // The viewer that will be cut: its snapshot, then gone.
        let cut = try EventStream(port: port)
        let snapshot = try cut.next()
        #expect(snapshot.name == "snapshot" && snapshot.data.contains("\"last\":true"))
        cut.close()

        // A viewer that stays: the oracle for what was sent meanwhile.
        let staying = try EventStream(port: port)
        #expect(try staying.next().id == snapshot.id, "nothing happened in between")
        #expect(try worldcup(["win", "Brazil"], db: store.db).status == 0)
        #expect(try worldcup(["win", "Japan", "--count", "2"], db: store.db).status == 0)
        #expect(try worldcup(["add", "--name", "Wenderland", "--zone", "Internets"], db: store.db).status == 0)
        var sent: [EventStream.Event] = []
        while !sent.contains(where: { $0.data.contains("Wenderland") }) { sent.append(try staying.next()) }
        #expect(sent.allSatisfy { $0.name == "change" })
        #expect(Set(sent.map(\.id)).count == sent.count && !sent.map(\.id).contains(snapshot.id), "ids are unique")

        let back = try EventStream(port: port, lastEventID: snapshot.id)
        var resumed: [EventStream.Event] = []
        for _ in sent { resumed.append(try back.next()) }
        #expect(resumed == sent, "exactly the missed change sets, in order, the same bytes")
        // Caught up: the next event is the next change set, for both.
        #expect(try worldcup(["win", "Ghana"], db: store.db).status == 0)
        let next = try back.next()
        #expect(next.name == "change" && next.data.contains("Ghana"))
        #expect(try staying.next() == next)

        // Named by an id the server cannot place: the standings afresh.
        let lost = try EventStream(port: port, lastEventID: "nowhere")
        let fresh = try lost.next()
        #expect(fresh.name == "snapshot" && fresh.id == next.id)
        #expect(fresh.data.contains("\"Wenderland\"") && fresh.data.contains("\"first\":true"))
        #expect(serve.stop() == 0)
    }
}

/// `GET /events` on a socket of its own, read event by event.
/// Used by one thread at a time.
final class EventStream: @unchecked Sendable {
    struct Event: Equatable {
        var id: String
        var name: String
        var data: String
    }

    private let descriptor: Int32
    /// Bytes as they came (head, chunk framing), and the event text taken out of them.
    private var raw: [UInt8] = []
    private var headRead = false
    private var buffer: [UInt8] = []
    /// The server ended the response (its last, empty chunk came).
    private(set) var ended = false

    /// The server ended the stream: no event will come.
    struct Ended: Error {}

    /// A viewer on `port`; `receiveBuffer` shrinks its socket's buffer (a phone that reads slowly).
    init(port: Int, lastEventID: String? = nil, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw HTTPClient.Failure(description: "cannot connect to port \(port)") }
        var request = "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if let lastEventID { request += "Last-Event-ID: \(lastEventID)\r\n" }
        let bytes = Array((request + "\r\n").utf8)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    deinit { close() }

    func close() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// The next event (comments and the `retry` field skipped); throws when none comes in 30 s.
    func next() throws -> Event {
        while true {
            if let end = blankLine() {
                let block = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 2)
                var event = Event(id: "", name: "", data: "")
                for line in block.split(separator: "\n") {
                    if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
                    if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
                    if line.hasPrefix("data: ") { event.data = String(line.dropFirst(6)) }
                }
                if !event.name.isEmpty { return event }
                continue
            }
            guard !ended else { throw Ended() }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { throw HTTPClient.Failure(description: "the event stream ended or stalled") }
            raw += chunk[0..<count]
            dropTransferFraming()
        }
    }

    private func blankLine() -> Int? {
        guard buffer.count >= 2 else { return nil }
        return (0..<buffer.count - 1).first { buffer[$0] == 10 && buffer[$0 + 1] == 10 }
    }

    /// Moves whole chunks of the chunked body from `raw` to `buffer`, after the response head.
    private func dropTransferFraming() {
        if !headRead {
            guard let end = Self.find([13, 10, 13, 10], in: raw) else { return }
            raw.removeFirst(end + 4)
            headRead = true
        }
        while let lineEnd = Self.find([13, 10], in: raw),
            let size = Int(String(decoding: raw[..<lineEnd], as: UTF8.self), radix: 16),
            raw.count >= lineEnd + 2 + size + 2
        {
            buffer += raw[(lineEnd + 2)..<(lineEnd + 2 + size)]
            raw.removeFirst(lineEnd + 2 + size + 2)
            if size == 0 { ended = true }
        }
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        return (0...bytes.count - pattern.count).first { Array(bytes[$0..<$0 + pattern.count]) == pattern }
    }
}
