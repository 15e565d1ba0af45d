import HTTPTypes
import Hummingbird
import NIOCore

/// Where a request comes from, for what `serve` keeps per client (the bound on taps): the
/// connection's peer, or behind a proxy (`--behind-proxy`) the last address in
/// `X-Forwarded-For`, the one the proxy itself added. Without a proxy any client could write
/// that header, so it is read only when told.
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
}
