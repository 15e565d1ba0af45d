import Foundation

/// Several hosts on one machine, for tests of what crosses a network: a network namespace for
/// the server and one per host (`ip netns`), each host joined to the server's bridge by a veth
/// pair. Addresses exist only inside the namespaces; all of it is removed when the lab goes away
/// (or, if the test process dies, by a watchdog).
public final class NetworkLab: @unchecked Sendable {
    /// The server's namespace.
    public let server: String
    /// The hosts' namespaces, in order.
    public let hosts: [String]
    /// The server's address, on its bridge.
    public static let serverAddress = "10.231.0.1"

    /// Makes the server's namespace and `count` hosts.
    public init(hosts count: Int) throws {
        let prefix = "wc\(getpid())\(UUID().uuidString.prefix(4).lowercased())"
        server = prefix + "s"
        hosts = (1...count).map { prefix + "h\($0)" }
        let names = ([server] + hosts).joined(separator: " ")
        let watchdog =
            "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; for n in \(names); do ip netns del $n; done"
        _ = try TemporaryCluster.spawn(["/bin/sh", "-c", watchdog], output: "/dev/null")
        try Self.ip(["netns", "add", server])
        try Self.ip(["-n", server, "link", "set", "lo", "up"])
        try Self.ip(["-n", server, "link", "add", "br0", "type", "bridge"])
        try Self.ip(["-n", server, "addr", "add", Self.serverAddress + "/24", "dev", "br0"])
        try Self.ip(["-n", server, "link", "set", "br0", "up"])
        for (index, host) in hosts.enumerated() {
            try Self.ip(["netns", "add", host])
            try Self.ip(["-n", host, "link", "set", "lo", "up"])
            try Self.ip([
                "link", "add", "port\(index + 1)", "netns", server, "type", "veth", "peer", "name", "eth0", "netns",
                host,
            ])
            try Self.ip(["-n", server, "link", "set", "port\(index + 1)", "master", "br0", "up"])
            try Self.ip(["-n", host, "addr", "add", address(ofHost: index) + "/24", "dev", "eth0"])
            try Self.ip(["-n", host, "link", "set", "eth0", "up"])
        }
    }

    deinit {
        for namespace in [server] + hosts { try? Self.ip(["netns", "del", namespace]) }
    }

    /// Host `index`'s address (0-based).
    public func address(ofHost index: Int) -> String { "10.231.0.\(index + 11)" }

    /// Cuts host `index` off: its port on the server's bridge goes down, as a pulled cable.
    public func cutLink(ofHost index: Int) throws {
        try Self.ip(["-n", server, "link", "set", "port\(index + 1)", "down"])
    }

    /// Plugs host `index` back in.
    public func restoreLink(ofHost index: Int) throws {
        try Self.ip(["-n", server, "link", "set", "port\(index + 1)", "up"])
    }

    /// A shell command run inside host `index`'s namespace.
    public func shell(_ command: String, inHost index: Int) -> String {
        "ip netns exec \(hosts[index]) sh -c '\(command.replacingOccurrences(of: "'", with: "'\\''"))'"
    }

    /// Runs `ip` and waits; throws with its output when it fails.
    static func ip(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw LabError(description: "ip \(arguments.joined(separator: " ")): \(text)")
        }
    }

    struct LabError: Error, CustomStringConvertible {
        let description: String
    }
}
