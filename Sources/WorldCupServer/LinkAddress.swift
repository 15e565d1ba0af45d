import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The host to print in the links: the address `serve` listens on, or, when it listens on
/// every address (`0.0.0.0`, `::`), this machine's first address that other machines can
/// reach, so that a phone scanning the code finds it.
enum LinkAddress {
    static func host(forListening host: String) -> String {
        guard ["0.0.0.0", "::", ""].contains(host) else { return host.contains(":") ? "[\(host)]" : host }
        return firstNetworkAddress() ?? host
    }

    /// Whether only this machine can reach `host` (a loopback address or `localhost`).
    static func isThisMachineOnly(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The first IPv4 address of an interface that is up and not the loopback.
    private static func firstNetworkAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == UInt16(AF_INET),
                flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &ipv4, &text, socklen_t(text.count)) != nil else { continue }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }
}
