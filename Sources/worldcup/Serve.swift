import ArgumentParser
import Foundation
import Logging
import WorldCupModel
import WorldCupServer

extension WorldCup {
    struct Serve: Subcommand, AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve the standings to browsers, live, and let phones with the scorer link add wins.",
            discussion: """
                Prints a link for viewers and one for scorers (with its QR code when it listens on the \
                network); the scorer token is in the link's fragment, which browsers never send. Stop \
                with Ctrl-C, or SIGTERM (systemctl stop) as well. Use --tls-cert and --tls-key on a \
                network you do not trust.
                """)

        @ParentCommand var root: WorldCup

        @OptionGroup var store: StoreOptions

        @Option(
            help: ArgumentHelp(
                "The address and port to listen on (default 127.0.0.1:8080; 0.0.0.0:8080 for every network).",
                valueName: "host:port"))
        var listen = "127.0.0.1:8080"

        @Flag(help: "Serve viewers only: no scorer link, every score refused.")
        var readOnly = false

        @Flag(help: "Make a new scorer token: links given out before stop scoring.")
        var rotateTokens = false

        @Option(
            help: ArgumentHelp(
                "A PEM certificate (chain) to serve HTTPS with (needs --tls-key).", valueName: "file"))
        var tlsCert: String?

        @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
        var tlsKey: String?

        @Option(
            help: ArgumentHelp(
                "Scores (taps and undos) one phone may make in a second, 1 to 1,000; more are refused (429).",
                valueName: "n"))
        var tapsPerSecond = WorldCupServe.defaultTapsPerSecond

        @Option(
            help: ArgumentHelp(
                "Viewers (browsers following the standings) served at once, 1 to 1,000,000; more are refused (503).",
                valueName: "n"))
        var maxViewers = WorldCupServe.defaultMaxViewers

        @Flag(
            help: """
                Behind a proxy (such as nginx): take each client's address from X-Forwarded-For, \
                which is otherwise ignored, as any client could write it.
                """)
        var behindProxy = false

        @Flag(help: "Answer /metrics to any client, not only to this machine's.")
        var openMetrics = false

        @Option(
            help: ArgumentHelp(
                "What to log on stderr: info (the default) logs a line per request (method, path, status, time); "
                    + "warning, error and critical only what went wrong; debug and trace more.",
                valueName: "level"))
        var logLevel = Logger.Level.info

        func validate() throws {
            try refuseScoreboardOptions()
            _ = try Self.address(listen)
            guard (tlsCert == nil) == (tlsKey == nil) else {
                throw ValidationError("--tls-cert and --tls-key go together: give both, or neither.")
            }
            guard (1...1_000).contains(tapsPerSecond) else {
                throw ValidationError(
                    "--taps-per-second takes a number of taps from 1 to 1,000, not \(tapsPerSecond).")
            }
            guard (1...1_000_000).contains(maxViewers) else {
                throw ValidationError("--max-viewers takes a number of viewers from 1 to 1,000,000, not \(maxViewers).")
            }
            guard !(readOnly && rotateTokens) else {
                throw ValidationError("--read-only serves no scorer token, so there is none to rotate.")
            }
        }

        func run() async throws {
            let (host, port) = try Self.address(listen)
            // Opened once here (making and seeding a new store); the server opens it again
            // for each of its threads.
            _ = try store.openSeededStore()
            let store = self.store
            var options = WorldCupServe.Options(
                host: host, port: port, readOnly: readOnly, rotateTokens: rotateTokens,
                tls: tlsCert.flatMap { certificate in tlsKey.map { (certificate, $0) } },
                tokenFolder: StoreLocation.serveTokenDirectory(environment: ProcessInfo.processInfo.environment),
                openStore: { try store.openStore() })
            options.tapsPerSecond = tapsPerSecond
            options.maxViewers = maxViewers
            options.behindProxy = behindProxy
            options.openMetrics = openMetrics
            options.logLevel = logLevel
            try await WorldCupServe.run(options) { line in
                // The server runs on whether or not its notes can be shown.
                try? StandardOutput.write(line + "\n", workDone: true)
            }
        }

        /// `HOST:PORT`, `[IPv6]:PORT`.
        static func address(_ text: String) throws -> (host: String, port: Int) {
            guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
                (0...65_535).contains(port)
            else {
                throw ValidationError(
                    "--listen takes HOST:PORT (such as 127.0.0.1:8080 or 0.0.0.0:8080), not \"\(text)\".")
            }
            var host = String(text[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty else {
                throw ValidationError("--listen needs a host before the port: 127.0.0.1:\(port).")
            }
            return (host, port)
        }
    }
}
