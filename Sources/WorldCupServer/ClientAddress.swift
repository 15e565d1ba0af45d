import HTTPTypes
import Hummingbird
import NIOCore

/// Where a request comes from, for what `serve` decides per client (the bound on taps, who may
/// read the metrics): the connection's peer, or behind a proxy (`--behind-proxy`) the last
/// address in `X-Forwarded-For`, the one the proxy itself added. Without a proxy any client
/// could write that header, so it is read only when told.
enum ClientAddress {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    static func of(_ request: Request, channel: any Channel, behindProxy: Bool) -> String {
        if behindProxy, let line = request.headers[values: forwardedFor].last,
            let last = line.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        {
            return last
        }
        return channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// Whether an address is this machine's loopback (127.0.0.0/8, ::1).
    static func isThisMachine(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }
}
