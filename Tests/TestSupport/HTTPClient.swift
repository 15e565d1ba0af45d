import Foundation

/// An HTTP answer as the tests look at it.
public struct HTTPReply: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// A header's value, whatever the case of its name.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// Plain HTTP/1.1 requests from the tests, on a socket of their own, waited for.
///
/// Not URLSession: on Linux it refuses header lines without a space after the colon, which
/// chromedriver sends (`cache-control:no-cache`). One request per connection (`Connection:
/// close`), the answer read to its end; `http://` on the loopback only, as the tests need.
public enum HTTPClient {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// `from`: the loopback address the request comes from (see ``LoopbackSocket``).
    public static func request(
        _ method: String, _ url: String, headers: [String: String] = [:], body: Data? = nil, timeout: Double = 60,
        from source: String? = nil
    ) throws -> HTTPReply {
        guard let parsed = URL(string: url), parsed.scheme == "http", let host = parsed.host, let port = parsed.port
        else {
            throw Failure(description: "\(url): only http://HOST:PORT/… is supported")
        }
        // As written: `path` would decode a percent-encoded segment (a key with a space in it).
        let path = parsed.path(percentEncoded: true)
        var target = path.isEmpty ? "/" : path
        if let query = parsed.query { target += "?" + query }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if body != nil || method == "POST" || method == "PUT" { head += "Content-Length: \(body?.count ?? 0)\r\n" }
        let request = Array((head + "\r\n").utf8) + (body.map { Array($0) } ?? [])
        let answer = try exchange(request, host: host, port: port, timeout: timeout, from: source)
        guard let reply = parse(answer) else {
            throw Failure(description: "\(method) \(url): no HTTP answer (\(answer.count) bytes)")
        }
        return reply
    }

    private static func exchange(
        _ request: [UInt8], host: String, port: Int, timeout: Double, from source: String?
    ) throws -> [UInt8] {
        let descriptor = try LoopbackSocket.connect(port: port, host: host, timeout: timeout, from: source)
        defer { close(descriptor) }
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            // The server may answer (413) and close before it has read a big body.
            guard count > 0 else { break }
            sent += count
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                answer += buffer[0..<count]
                // A server may keep the connection open after its answer.
                if isComplete(answer) { return answer }
            } else if count < 0 && errno == EINTR {
                continue
            } else if count < 0 && answer.isEmpty {
                throw Failure(description: "\(host):\(port): no answer (errno \(errno))")
            } else {
                return answer
            }
        }
    }

    /// Where the head of an answer ends (before its blank line).
    private static func headEnd(_ answer: [UInt8]) -> Int? {
        guard answer.count >= 4 else { return nil }
        return (0...answer.count - 4).first {
            answer[$0] == 13 && answer[$0 + 1] == 10 && answer[$0 + 2] == 13 && answer[$0 + 3] == 10
        }
    }

    /// Whether the whole answer is in: its body as long as `Content-Length` says, or its last chunk.
    private static func isComplete(_ answer: [UInt8]) -> Bool {
        guard let end = headEnd(answer) else { return false }
        let head = String(decoding: answer[..<end], as: UTF8.self).lowercased()
        let bodyCount = answer.count - end - 4
        for line in head.components(separatedBy: "\r\n") where line.hasPrefix("content-length:") {
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
            return length.map { bodyCount >= $0 } ?? false
        }
        if head.contains("transfer-encoding: chunked") || head.contains("transfer-encoding:chunked") {
            return answer.suffix(5) == [48, 13, 10, 13, 10]
        }
        // 1xx, 204 and 304 answers have no body.
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return status == 204 || status == 304 || (100..<200).contains(status)
    }

    private static func parse(_ answer: [UInt8]) -> HTTPReply? {
        guard let end = headEnd(answer) else { return nil }
        let lines = String(decoding: answer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(answer[(end + 4)...])
        let chunked = fields.first { $0.key.lowercased() == "transfer-encoding" }?.value.lowercased() == "chunked"
        if chunked { body = dechunked(body) }
        return HTTPReply(status: status, headers: fields, body: Data(body))
    }

    private static func dechunked(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = (index..<bytes.count - 1).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                let size = Int(
                    String(decoding: bytes[index..<lineEnd], as: UTF8.self)
                        .split(separator: ";").first ?? "", radix: 16), size > 0
            else { break }
            let start = lineEnd + 2
            result += bytes[start..<min(bytes.count, start + size)]
            index = start + size + 2
        }
        return result
    }

    /// A free TCP port on the loopback (for a program that needs one named).
    public static func freePort() -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return LoopbackSocket.localPort(of: descriptor)
    }
}
