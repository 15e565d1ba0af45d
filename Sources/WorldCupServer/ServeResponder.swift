import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle
import WorldCupModel

/// Every request `serve` answers, by method and path. Anything else, malformed, oversized or
/// unauthorised gets a 4xx with a JSON `{"error": …}` that says what to do, and changes nothing.
struct ServeResponder: HTTPResponder {
    typealias Context = ServeRequestContext

    /// The longest request body taken (none of the requests needs one).
    static let maximumBody = 64 * 1024
    /// The longest request target (path and query).
    static let maximumTarget = 2_048
    /// When a viewer refused for want of room may ask again (`Retry-After`).
    static let viewerRetrySeconds = 5

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

    func respond(to request: Request, context: Context) async throws -> Response {
        let response = await answer(request, context: context)
        if response.status.code >= 400 { metrics.refused(response.status) }
        return response
    }

    private func answer(_ request: Request, context: Context) async -> Response {
        var request = request
        do {
            guard request.uri.string.utf8.count <= Self.maximumTarget else {
                throw Refusal(.uriTooLong, "The address is longer than \(Self.maximumTarget) characters.")
            }
            if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > Self.maximumBody {
                throw Refusal(.contentTooLarge, "Request bodies are limited to 64 KB.")
            }
            do {
                _ = try await request.collectBody(upTo: Self.maximumBody)
            } catch is NIOTooManyBytesError {
                // A body without a length (chunked) that grows past the bound.
                throw Refusal(.contentTooLarge, "Request bodies are limited to 64 KB.")
            } catch {
                throw Refusal(.badRequest, "The request's body is malformed.")
            }
            return try await route(request, channel: context.channel)
        } catch let refusal as Refusal {
            return refusal.response
        } catch let error as WorldCupError {
            return Self.response(for: error).response
        } catch {
            return Refusal(.internalServerError, "The server failed: \(error)").response
        }
    }

    private func route(_ request: Request, channel: any Channel) async throws -> Response {
        let path = request.uri.path
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        switch (request.method, path) {
        case (.get, "/"):
            let tvMode = request.uri.queryParameters["tv"] != nil
            let rows = await follower.firstRows(StandingsPage.renderedRows)
            return Self.ok(StandingsPage.html(rows, tvMode: tvMode), type: "text/html; charset=utf-8")
        case (.get, "/app.js"):
            return Self.ok(PageAssets.script, type: "text/javascript; charset=utf-8")
        case (.get, "/app.css"):
            return Self.ok(PageAssets.style, type: "text/css; charset=utf-8")
        case (.get, "/standings.json"):
            let json = try await reader.run { try StandingsJSON.encode($0.standings()) }
            return Self.ok(json, type: "application/json; charset=utf-8")
        case (.get, "/events"):
            // A browser coming back names the last event it got; anything else gets a snapshot.
            let lastEventID = request.headers[HTTPField.Name("Last-Event-ID")!]
                .flatMap { $0.utf8.count <= 256 ? $0 : nil }
            return try await events(lastEventID: lastEventID, channel: channel)
        case (.get, "/healthz"):
            return Self.ok("{\"status\":\"up\"}", type: "application/json; charset=utf-8")
        case (.get, "/readyz"):
            if let reason = await follower.notReadyReason() { throw Refusal(.serviceUnavailable, reason) }
            return Self.ok("{\"status\":\"ready\"}", type: "application/json; charset=utf-8")
        case (.get, "/metrics"):
            let client = ClientAddress.of(request, channel: channel, behindProxy: behindProxy)
            guard openMetrics || ClientAddress.isThisMachine(client) else {
                throw Refusal(
                    .forbidden,
                    "The metrics are kept to this machine: scrape them from it, or start serve with "
                        + "--open-metrics.")
            }
            let text = metrics.text(viewers: follower.hub.count)
            var headers = Self.headers(type: "text/plain; version=0.0.4; charset=utf-8")
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
        case (.get, "/scorer"):
            try authorise(request)
            return Response(status: .noContent, headers: Self.headers(type: nil))
        case (_, "/"), (_, "/app.js"), (_, "/app.css"), (_, "/standings.json"), (_, "/events"), (_, "/scorer"),
            (_, "/healthz"), (_, "/readyz"), (_, "/metrics"):
            throw Refusal(.methodNotAllowed, "Only GET is answered at \(path).", allow: "GET")
        default:
            break
        }
        guard parts.count >= 3, parts.first == "teams", parts[parts.startIndex + 2] == "wins" else {
            throw Refusal(.notFound, "Nothing is at \(path): the standings are at /.")
        }
        let teamID = try Self.teamID(parts[parts.startIndex + 1])
        switch (request.method, parts.count) {
        case (.post, 3):
            try authorise(request)
            try limit(request, channel)
            let key = try IdempotencyKey.scoreKey(request)
            return try Self.answer(await writer.run { try $0.addWin(teamID: teamID, clientKey: key) }, teamID: teamID)
        case (.delete, 4):
            try authorise(request)
            try limit(request, channel)
            let key = try IdempotencyKey.scoreKey(inPath: parts[parts.startIndex + 3])
            return try Self.answer(await writer.run { try $0.takeBackWin(teamID: teamID, winKey: key) }, teamID: teamID)
        case (_, 3):
            throw Refusal(.methodNotAllowed, "A win is added with POST.", allow: "POST")
        case (_, 4):
            throw Refusal(.methodNotAllowed, "A win is taken back with DELETE.", allow: "DELETE")
        default:
            throw Refusal(.notFound, "Nothing is at \(path).")
        }
    }

    /// The event stream: what the viewer missed since `lastEventID`, or a snapshot, then each
    /// change set, until the viewer leaves or the server stops. A viewer that is cut off, or
    /// still there when the server stops, has its connection closed: a write to one that reads
    /// nothing waits until then. A viewer's place is freed as soon as its connection closes
    /// (which ``ViewerHeartbeat`` shows within seconds). Past the bound of viewers: 503.
    private func events(lastEventID: String?, channel: any Channel) async throws -> Response {
        guard
            let (stream, end) = await follower.subscribe(
                lastEventID: lastEventID, cutOff: { channel.close(promise: nil) })
        else {
            throw Refusal(
                .serviceUnavailable,
                "This server already has \(follower.hub.maximumViewers) viewers, as many as it takes "
                    + "(--max-viewers): try again in a few seconds.", retryAfter: Self.viewerRetrySeconds)
        }
        channel.closeFuture.whenComplete { _ in end() }
        var headers = Self.headers(type: "text/event-stream; charset=utf-8")
        headers[.cacheControl] = "no-store"
        // Each event passed on as it is written, by nginx and the proxies that read this header.
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                // A browser that lost the stream asks again after a second.
                try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
                // A stopping server ends every stream, so that it does not wait for viewers to
                // leave, and closes the connection in case a write is stuck.
                try await withGracefulShutdownHandler {
                    for await buffer in stream.cancelOnGracefulShutdown() { try await writer.write(buffer) }
                    try await writer.finish(nil)
                } onGracefulShutdown: {
                    channel.close(promise: nil)
                }
            })
    }

    /// Checks `Authorization: Bearer TOKEN` against the scorer token.
    private func authorise(_ request: Request) throws {
        guard let token else {
            throw Refusal(
                .forbidden, "This server is read-only (--read-only): it serves the standings to viewers only.")
        }
        guard let value = request.headers[.authorization], value.count > 7,
            value.prefix(7).lowercased() == "bearer "
        else {
            throw Refusal(
                .unauthorized, "Scoring needs the scorer link (Authorization: Bearer TOKEN).",
                authenticate: true)
        }
        guard token.accepts(value.dropFirst(7)) else {
            throw Refusal(
                .forbidden, "This scorer token is not valid (it may have been rotated): ask for the new link.")
        }
    }

    /// Takes a tap from the client's bound, or refuses the score with 429 and when to try again.
    private func limit(_ request: Request, _ channel: any Channel) throws {
        let client = ClientAddress.of(request, channel: channel, behindProxy: behindProxy)
        guard let wait = taps.take(for: client) else { return }
        throw Refusal(
            .tooManyRequests,
            "Too many taps from this phone: at most \(taps.perSecond) a second. Nothing was changed; "
                + "tap again in a moment.", retryAfter: wait)
    }

    /// The team id in a path: a whole number, or a 404 that says whether it is not one or is
    /// one no team has (zero, negative, too large), the store unasked.
    private static func teamID(_ text: Substring) throws -> Int64 {
        let digits = text.first == "-" ? text.dropFirst() : text
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw Refusal(.notFound, "No team has the id \"\(Self.visible(text))\": team ids are whole numbers.")
        }
        guard let id = Int64(text), id > 0 else { throw Refusal(.notFound, "No team has the id \(text).") }
        return id
    }

    private static func answer(_ score: KeyedScore, teamID: Int64) throws -> Response {
        switch score {
        case let .done(id, wins):
            return ok("{\"id\":\(id),\"wins\":\(wins)}", type: "application/json; charset=utf-8")
        case .teamGone:
            throw Refusal(.notFound, "No team has the id \(teamID).")
        case .keyUsedElsewhere:
            throw Refusal(.unprocessableContent, "This Idempotency-Key was used for another score: make a new one.")
        case .unknownWin:
            throw Refusal(.notFound, "No win of team \(teamID) was counted with this key.")
        case .nothingToTakeBack:
            throw Refusal(.conflict, "Someone has taken that win back already: nothing was changed.")
        }
    }

    private static func response(for error: WorldCupError) -> Refusal {
        switch error {
        case .storeReadOnly:
            return Refusal(.forbidden, "The store is read-only: nothing was changed.")
        case .winsOverflow:
            return Refusal(.conflict, error.description)
        case .notPermitted:
            return Refusal(.forbidden, error.description)
        case .serverUnreachable, .scoreInDoubt, .storeBusy:
            return Refusal(.serviceUnavailable, error.description)
        default:
            return Refusal(.internalServerError, error.description)
        }
    }

    /// What every answer carries: no script but the page's own, no framing, no sniffing.
    static func headers(type: String?) -> HTTPFields {
        var headers = HTTPFields()
        if let type { headers[.contentType] = type }
        headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[.cacheControl] = "no-store"
        return headers
    }

    private static func ok(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: headers(type: type), body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// A user's text in a message, control characters made visible.
    static func visible(_ text: Substring) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map {
                    $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "\u{FFFD}" : $0
                }))
    }
}

/// A request refused with a 4xx (or a store's failure, 5xx), and the reason as JSON.
struct Refusal: Error {
    var status: HTTPResponse.Status
    var message: String
    var allow: String?
    var authenticate = false
    /// Seconds after which the same request may succeed (`Retry-After`).
    var retryAfter: Int?

    init(
        _ status: HTTPResponse.Status, _ message: String, allow: String? = nil, authenticate: Bool = false,
        retryAfter: Int? = nil
    ) {
        self.status = status
        self.message = message
        self.allow = allow
        self.authenticate = authenticate
        self.retryAfter = retryAfter
    }

    var response: Response {
        var headers = ServeResponder.headers(type: "application/json; charset=utf-8")
        if let allow { headers[.allow] = allow }
        if authenticate { headers[.wwwAuthenticate] = "Bearer" }
        if let retryAfter { headers[.retryAfter] = "\(retryAfter)" }
        var json = WireJSON()
        json.raw("{\"error\":")
        json.string(message)
        json.raw("}")
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: json.bytes)))
    }
}
