import Hummingbird
import Logging

/// The router's outermost middleware: a line per request on the log at `info`, as a web
/// server's access log has — method, path, status, and the time until the answer was made
/// (an event stream's: until it ended) — such as `GET /standings.json 200 1.4 ms`.
///
/// Hummingbird's `LogRequestsMiddleware` logs a request as it arrives, with its whole target:
/// neither status nor time, and the query. This one never logs the query, a fragment or a
/// header, where a token could be.
struct RequestLog<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    /// The longest path logged, in characters (all ASCII); a longer one ends with "…".
    static var maximumPath: Int { 256 }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard logger.logLevel <= .info else { return try await next(request, context) }
        let start = ContinuousClock.now
        var response = try await next(request, context)
        let line = "\(request.method.rawValue) \(Self.loggedPath(request.uri.path)) \(response.status.code)"
        let logger = self.logger
        let body = response.body
        // A body of known length is made whole: logged now, its bytes go out with the head.
        // A stream is logged when it ends (wrapped, its head is written alone).
        guard body.contentLength == nil else {
            logger.info("\(line) \(Self.milliseconds(ContinuousClock.now - start)) ms")
            return response
        }
        response.body = ResponseBody { writer in
            defer { logger.info("\(line) \(Self.milliseconds(ContinuousClock.now - start)) ms") }
            try await body.write(writer)
        }
        return response
    }

    /// The path as it may be logged: up to a fragment (which a client should never send, and
    /// where the scorer link keeps its token), bounded. The HTTP parser has refused (400) any
    /// target with a byte outside printable ASCII, so a path cannot write a line of its own.
    static func loggedPath(_ path: String) -> String {
        let beforeFragment = path.prefix { $0 != "#" }
        let kept = beforeFragment.prefix(maximumPath)
        if kept.count < beforeFragment.count { return kept + "…" }
        return kept.count < path.count ? kept + "#…" : String(kept)
    }

    /// A duration in milliseconds with one decimal: 1.4, 12034.0.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = seconds * 10_000 + attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
