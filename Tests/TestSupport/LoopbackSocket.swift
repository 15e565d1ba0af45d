import Foundation

/// TCP connections on the loopback for the tests' own clients (HTTP requests, event streams,
/// raw bytes), made one way.
public enum LoopbackSocket {
    /// A socket connected to `port`, its reads and writes given up after `timeout` seconds;
    /// `receiveBuffer` shrinks its receive buffer (a phone that reads slowly), set before the
    /// connection so the window is small from the start; `from` is the loopback address it
    /// comes from (127.0.0.2…, another client to the server). The caller closes it.
    public static func connect(
        port: Int, host: String = "127.0.0.1", timeout: Double, receiveBuffer: Int32? = nil, from source: String? = nil
    ) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HTTPClient.Failure(description: "no socket (errno \(errno))") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let failure = errno
                close(descriptor)
                throw HTTPClient.Failure(description: "cannot connect from \(source) (errno \(failure))")
            }
        }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr(host == "localhost" ? "127.0.0.1" : host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let failure = errno
            close(descriptor)
            throw HTTPClient.Failure(description: "\(host):\(port): cannot connect (errno \(failure))")
        }
        return descriptor
    }

    /// The local port of a socket (bound or connected).
    public static func localPort(of descriptor: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
