import FetchedResults
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import WorldCupModel

/// `worldcup serve`: the standings in browsers, live from one results controller that follows
/// the store, and scoring from phones that hold the scorer link.
///
/// The command line wires a store in (this module imports no database module): ``run(_:)``
/// opens it as many times as it needs, each on one thread or queue of its own — the follower's
/// controller, the writes, and the `/standings.json` reads.
public enum WorldCupServe {
    /// What `serve` was asked to do.
    public struct Options: Sendable {
        /// The address to listen on, and its port (0: any free port).
        public var host: String
        public var port: Int
        /// Serve viewers only: no scorer token, every score refused.
        public var readOnly: Bool
        /// Make a new scorer token, so that links given out before stop scoring.
        public var rotateTokens: Bool
        /// PEM files of the certificate (chain) and key, to serve HTTPS.
        public var tls: (certificate: String, key: String)?
        /// Where this user keeps the tokens it made, to print the scorer link again after a
        /// restart (nil: nowhere).
        public var tokenFolder: String?
        /// Opens the store (called once per thread or queue that needs one).
        public var openStore: @Sendable () throws -> any ScoreStore
        /// Scores (taps and undos) taken from one client in a second, at most.
        public var tapsPerSecond = WorldCupServe.defaultTapsPerSecond
        /// Viewers (event streams) followed at once, at most.
        public var maxViewers = WorldCupServe.defaultMaxViewers
        /// A proxy in front names each client in `X-Forwarded-For`.
        public var behindProxy = false
        /// `/metrics` answers any client, not only this machine.
        public var openMetrics = false
        /// What is logged on stderr: at `info` (the default), a line per request.
        public var logLevel = Logger.Level.info

        public init(
            host: String, port: Int, readOnly: Bool, rotateTokens: Bool, tls: (certificate: String, key: String)?,
            tokenFolder: String?, openStore: @escaping @Sendable () throws -> any ScoreStore
        ) {
            self.host = host
            self.port = port
            self.readOnly = readOnly
            self.rotateTokens = rotateTokens
            self.tls = tls
            self.tokenFolder = tokenFolder
            self.openStore = openStore
        }
    }

    /// Scores one client may make in a second unless told otherwise: more than a finger taps.
    public static let defaultTapsPerSecond = 10

    /// Viewers one server follows at once unless told otherwise (the tests run 1,000 on one).
    public static let defaultMaxViewers = 10_000

    /// How long a connection may take to send a whole request head, from when it opens or its
    /// last answer ends (and each part of a body): one that never finishes its headers, at once
    /// or a byte at a time, is closed then, as is a keep-alive connection left idle (browsers
    /// open another). An answer being written (an event stream) is not timed.
    static let requestHeadTimeout = TimeAmount.seconds(10)

    /// Serves until SIGINT or SIGTERM; prints the links (and the scorer link's QR code) with
    /// `print` once it listens. The server and the follower of the standings run as services of
    /// one service group, which a signal shuts down gracefully.
    public static func run(_ options: Options, print: @escaping @Sendable (String) -> Void) async throws {
        let writer = StoreWorker(label: "worldcup.writes", open: options.openStore)
        let token = try prepareToken(options, writer)
        let tlsConfiguration = try options.tls.map(Self.tlsConfiguration)
        let metrics = ServeMetrics()
        let hub = ViewerHub(maximumViewers: options.maxViewers, metrics: metrics)
        let openStore = options.openStore
        let follower = try StandingsFollower(hub: hub, metrics: metrics) {
            try openStore().standingsController(cacheDirectory: nil)
        }
        let routes = ServeRoutes(
            follower: follower, writer: writer, reader: StoreWorker(label: "worldcup.reads", open: options.openStore),
            token: token, taps: TapLimiter(perSecond: options.tapsPerSecond), behindProxy: options.behindProxy,
            metrics: metrics, openMetrics: options.openMetrics)
        let http = HTTP1Channel.Configuration(
            additionalChannelHandlers: [SendBufferLimit()],
            idleTimeout: requestHeadTimeout,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: 8 * 1024, maxHeaderListSize: 32 * 1024, maxHeaderFieldCount: 100))
        var logger = Logger(label: "worldcup serve") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = options.logLevel
        let scheme = tlsConfiguration == nil ? "http" : "https"
        let host = options.host
        let application = Application(
            router: routes.router(log: logger),
            server: try tlsConfiguration.map { try .tls(.http1(configuration: http), tlsConfiguration: $0) }
                ?? .http1(configuration: http),
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                let base = "\(scheme)://\(LinkAddress.host(forListening: host)):\(port)/"
                let local = LinkAddress.isThisMachineOnly(host) ? port : nil
                for line in links(base: base, token: token, onlyThisMachineAt: local) { print(line) }
            },
            logger: logger)
        let services = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: follower), .init(service: ViewerHeartbeat(hub: hub)),
                    .init(service: StoreHousekeeping(writer: writer)), .init(service: application),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await services.run()
        } catch {
            throw ServeError.serverFailed(host: host, port: options.port, error)
        }
    }

    /// The lines printed once the server listens: the links, and the scorer link as a QR code.
    /// Listening on a loopback address (`onlyThisMachineAt` its port), no phone could open
    /// them: no QR code then, but how to listen on the network.
    static func links(base: String, token: ScorerToken?, onlyThisMachineAt port: Int? = nil) -> [String] {
        var lines = ["Viewers: \(base)"]
        let network = port.map {
            "Only this machine can open these links: to let phones and a TV join, "
                + "listen on the network with --listen 0.0.0.0:\($0)"
        }
        guard let token else {
            lines.append("Read-only: no scorer link (--read-only).")
            return lines + (network.map { [$0] } ?? [])
        }
        guard let secret = token.token else {
            lines.append(
                "Scorers: use the scorer link printed when its token was made "
                    + "(this machine does not keep it), or start with --rotate-tokens for a new one.")
            return lines
        }
        let link = base + "#scorer=" + secret
        lines.append("Scorers: \(link)")
        if let network { return lines + [network] }
        let colors = isatty(STDOUT_FILENO) == 1
        lines += TerminalQRCode.lines(for: link, colors: colors) ?? []
        return lines
    }

    private static func prepareToken(_ options: Options, _ writer: StoreWorker) throws -> ScorerToken? {
        guard !options.readOnly else { return nil }
        let (digest, readOnly, name): ([UInt8]?, Bool, String)
        do {
            (digest, readOnly, name) = try writer.runNow { store in
                (store.isReadOnly ? nil : try store.scorerTokenDigest(), store.isReadOnly, store.displayName)
            }
        } catch let error as StoreError where error.reason == .notPermitted {
            // A viewer's role may not see the token: it may still serve viewers.
            throw ServeError.cannotServeScorers(reason: "\(error)")
        }
        if readOnly { throw ServeError.storeReadOnly(store: name) }
        return try ScorerToken.prepare(
            digestInStore: digest, rotating: options.rotateTokens, folder: options.tokenFolder
        ) { digest, replacing in
            try writer.runNow { try $0.keepScorerTokenDigest(digest, replacing: replacing) }
        }
    }

    private static func tlsConfiguration(_ files: (certificate: String, key: String)) throws -> TLSConfiguration {
        for (kind, path) in [("certificate", files.certificate), ("private key", files.key)]
        where access(path, R_OK) != 0 {
            throw ServeError.tlsFileUnreadable(kind: kind, path: path, reason: String(cString: strerror(errno)))
        }
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(files.certificate)
                .map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: files.key, format: .pem)
            return TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        } catch {
            throw ServeError.tlsFilesUnusable(certificate: files.certificate, key: files.key, reason: "\(error)")
        }
    }
}

/// Why `serve` could not start; each says what to do.
public enum ServeError: Error, CustomStringConvertible {
    case storeReadOnly(store: String)
    case cannotServeScorers(reason: String)
    case tlsFileUnreadable(kind: String, path: String, reason: String)
    case tlsFilesUnusable(certificate: String, key: String, reason: String)
    case serverFailed(host: String, port: Int, any Error)

    public var description: String {
        switch self {
        case let .storeReadOnly(store):
            return "the store \(store) is read-only here, so nobody could score: "
                + "serve it to viewers only with --read-only."
        case let .cannotServeScorers(reason):
            return reason + " Or serve it to viewers only, with --read-only."
        case let .tlsFileUnreadable(kind, path, reason):
            return
                "cannot read the TLS \(kind) \(path): \(reason). Give PEM files of a certificate and its private key."
        case let .tlsFilesUnusable(certificate, key, reason):
            return "cannot use the TLS certificate \(certificate) with the key \(key) (\(reason)): "
                + "give PEM files of a certificate and its private key."
        case let .serverFailed(host, port, error):
            let start = "cannot serve on \(host):\(port): "
            switch (error as? IOError)?.errnoCode {
            case EADDRINUSE:
                return start + "another program is using that port. Choose another with --listen HOST:PORT."
            case EADDRNOTAVAIL:
                return start + "\(host) is not an address of this machine. "
                    + "Give one of its addresses with --listen HOST:PORT (0.0.0.0 for all of them)."
            case EACCES:
                return start + "this user may not listen on port \(port). "
                    + "Choose a port above 1023 with --listen HOST:PORT."
            case let code?:
                return start + String(cString: strerror(code)) + ". Choose another with --listen HOST:PORT."
            case nil:
                return start + "\(error). Choose another with --listen HOST:PORT."
            }
        }
    }
}
