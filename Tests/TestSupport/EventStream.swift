import Foundation

/// `GET /events` on a socket of its own, read event by event.
/// Used by one thread at a time.
public final class EventStream: @unchecked Sendable {
    public struct Event: Equatable, Sendable {
        public var id: String
        public var name: String
        public var data: String
    }

    /// The socket, for waiting on many streams at once (`poll`) before ``eventsWaiting()``.
    public let descriptor: Int32
    /// Bytes as they came (head, chunk framing), and the event text taken out of them.
    private var raw: [UInt8] = []
    private var headRead = false
    private var buffer: [UInt8] = []
    /// The server ended the response (its last, empty chunk came).
    public private(set) var ended = false

    /// The server ended the stream (its last chunk, or it closed the connection): no event will
    /// come.
    public struct Ended: Error {
        public init() {}
    }

    /// A viewer on `port`; `receiveBuffer` shrinks its socket's buffer (a phone that reads slowly).
    public init(port: Int, lastEventID: String? = nil, receiveBuffer: Int32? = nil) throws {
        descriptor = try LoopbackSocket.connect(port: port, timeout: 30, receiveBuffer: receiveBuffer)
        var request = "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if let lastEventID { request += "Last-Event-ID: \(lastEventID)\r\n" }
        let bytes = Array((request + "\r\n").utf8)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    deinit {
        close()
        Glibc.close(descriptor)
    }

    public func close() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// The next event (comments and the `retry` field skipped); throws when none comes in 30 s.
    public func next() throws -> Event {
        while true {
            if let event = takeEvent() { return event }
            guard !ended else { throw Ended() }
            let count = receive(flags: 0)
            if count == 0 || (count < 0 && errno == ECONNRESET) { throw Ended() }
            guard count > 0 else { throw HTTPClient.Failure(description: "no event came in 30 s") }
        }
    }

    /// The events whose bytes have come, without waiting for more: for a reader that follows
    /// many streams in one thread, after `poll` said this one is readable.
    public func eventsWaiting() throws -> [Event] {
        let count = receive(flags: Int32(MSG_DONTWAIT))
        guard count > 0 || (count < 0 && errno == EAGAIN) else {
            throw HTTPClient.Failure(description: "the event stream ended")
        }
        var events: [Event] = []
        while let event = takeEvent() { events.append(event) }
        return events
    }

    /// Reads what the socket holds; `recv`'s count (0: the stream ended, -1: see `errno`).
    private func receive(flags: Int32) -> Int {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(descriptor, &chunk, chunk.count, flags)
        if count > 0 {
            raw += chunk[0..<count]
            dropTransferFraming()
        }
        return count
    }

    /// The first whole event in the buffer, taken out of it.
    private func takeEvent() -> Event? {
        while let end = blankLine() {
            let block = String(decoding: buffer[..<end], as: UTF8.self)
            buffer.removeFirst(end + 2)
            var event = Event(id: "", name: "", data: "")
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { event.data = String(line.dropFirst(6)) }
            }
            if !event.name.isEmpty { return event }
        }
        return nil
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
        return (0...bytes.count - pattern.count).first { start in
            pattern.indices.allSatisfy { bytes[start + $0] == pattern[$0] }
        }
    }
}
