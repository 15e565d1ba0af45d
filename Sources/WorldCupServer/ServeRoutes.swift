import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import WorldCupModel

/// Every request `serve` answers, on Hummingbird's router: a route per method and path, and the
/// checks routes share as middleware (``RequestLog``, ``RefusalBodies``, ``RequestLimits``,
/// ``ScorerAuthorisation``, ``TapLimit``). Anything else, malformed, oversized or unauthorised
/// gets a 4xx with a JSON `{"error": …}` that says what to do, and changes nothing.
struct ServeRoutes: Sendable {
    typealias Context = ServeRequestContext

    /// When a viewer refused for want of room may ask again (`Retry-After`).
    static let viewerRetrySeconds = 5

    /// The methods a path refuses with 405 when it answers another: HTTP's own, and QUERY (a
    /// safe method with a body, on its way to a standard), which clients and API testers send.
    /// The router knows a path only with a method, so one outside these (`XYZ /`) is answered
    /// as an unknown path, 404.
    private static let refusedMethods: [HTTPRequest.Method] = [
        .get, .head, .post, .put, .delete, .patch, .options, .trace, HTTPRequest.Method("QUERY")!,
    ]

    let follower: StandingsFollower
    let writer: StoreWorker
    let reader: StoreWorker
    /// Nil when the server is read-only: no request may score.
    let token: ScorerToken?
    let taps: TapLimiter
    /// Whether clients are named by `X-Forwarded-For` (``ClientAddress``).
    let behindProxy: Bool
    let metrics: ServeMetrics
    /// `/metrics` answers any client (else only this machine's).
    let openMetrics: Bool

    /// The router `serve` answers with: each request's line on `log` and the shared checks
    /// first, then the viewers' routes and the scorers'.
    func router(log: Logger) -> Router<Context> {
        let router = Router(context: Context.self)
        router.add(middleware: RequestLog(logger: log))
        router.add(middleware: RefusalBodies(metrics: metrics))
        router.add(middleware: RequestLimits())
        for path in ["/", "/app.js", "/app.css", "/standings.json", "/events", "/healthz", "/readyz", "/metrics"] {
            refuseOtherMethods(
                than: .get, at: RouterPath(path), router,
                Refusal(.methodNotAllowed, "Only GET is answered at \(path).", allow: "GET"))
        }
        router.get("/") { request, _ in
            let tvMode = request.uri.queryParameters["tv"] != nil
            let rows = await follower.firstRows(StandingsPage.renderedRows)
            return ServeHeaders.ok(StandingsPage.html(rows, tvMode: tvMode), type: "text/html; charset=utf-8")
        }
        router.get("/app.js") { _, _ in ServeHeaders.ok(PageAssets.script, type: "text/javascript; charset=utf-8") }
        router.get("/app.css") { _, _ in ServeHeaders.ok(PageAssets.style, type: "text/css; charset=utf-8") }
        router.get("/standings.json") { _, _ in
            let json = try await reader.run { try StandingsJSON.encode($0.standings()) }
            return ServeHeaders.ok(json, type: "application/json; charset=utf-8")
        }
        router.get("/events") { request, context in try await events(request, channel: context.channel) }
        router.get("/healthz") { _, _ in
            ServeHeaders.ok("{\"status\":\"up\"}", type: "application/json; charset=utf-8")
        }
        router.get("/readyz") { _, _ in
            if let reason = await follower.notReadyReason() { throw Refusal(.serviceUnavailable, reason) }
            return ServeHeaders.ok("{\"status\":\"ready\"}", type: "application/json; charset=utf-8")
        }
        router.get("/metrics") { request, context in try metricsPage(request, channel: context.channel) }
        addScoring(to: router)
        return router
    }

    /// Refuses at `path` every method but `allowed` (which a route answers), with `refusal`.
    func refuseOtherMethods(
        than allowed: HTTPRequest.Method, at path: RouterPath, _ router: Router<Context>, _ refusal: Refusal
    ) {
        for method in Self.refusedMethods where method != allowed {
            router.on(path, method: method) { _, _ -> Response in throw refusal }
        }
    }

    private func metricsPage(_ request: Request, channel: any Channel) throws -> Response {
        let client = ClientAddress.of(request, channel: channel, behindProxy: behindProxy)
        guard openMetrics || ClientAddress.isThisMachine(client) else {
            throw Refusal(
                .forbidden,
                "The metrics are kept to this machine: scrape them from it, or start serve with --open-metrics.")
        }
        let text = metrics.text(viewers: follower.hub.count)
        let headers = ServeHeaders.fields(type: "text/plain; version=0.0.4; charset=utf-8")
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
    }
}
