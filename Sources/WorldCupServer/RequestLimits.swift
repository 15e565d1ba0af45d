import Hummingbird
import NIOCore

/// The bounds on every request, checked before any route answers it: the target's length, the
/// body's size and the time it takes to come (none of the requests needs a body; one is read and
/// dropped so that the connection can take the next request).
struct RequestLimits: RouterMiddleware {
    typealias Context = ServeRequestContext

    /// The longest request body taken.
    static var maximumBody: Int { 64 * 1024 }
    /// How long a body may take to come whole, from the request's head, before its connection
    /// is closed. Hummingbird's timeout restarts with each part of a body, so a body sent a few
    /// bytes at a time (R-U-Dead-Yet) would hold its connection for hours; this bounds it as
    /// the head is bounded (``WorldCupServe/requestHeadTimeout``).
    static var bodyTimeout: TimeAmount { .seconds(10) }
    /// The longest request target (path and query).
    static var maximumTarget: Int { 2_048 }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.uri.string.utf8.count <= Self.maximumTarget else {
            throw Refusal(.uriTooLong, "The address is longer than \(Self.maximumTarget) characters.")
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > Self.maximumBody {
            throw Refusal(.contentTooLarge, "Request bodies are limited to 64 KB.")
        }
        var request = request
        let channel = context.channel
        // Closing the connection ends the body's read, which nothing else would interrupt.
        let deadline = channel.eventLoop.scheduleTask(in: Self.bodyTimeout) { channel.close(promise: nil) }
        defer { deadline.cancel() }
        do {
            _ = try await request.collectBody(upTo: Self.maximumBody)
        } catch is NIOTooManyBytesError {
            // A body without a length (chunked) that grows past the bound.
            throw Refusal(.contentTooLarge, "Request bodies are limited to 64 KB.")
        } catch {
            // Cut off at the deadline (or the client left): nobody reads the answer, the
            // metrics count it.
            guard channel.isActive else {
                throw Refusal(.requestTimeout, "The request's body did not come whole within 10 s.")
            }
            throw Refusal(.badRequest, "The request's body is malformed.")
        }
        return try await next(request, context)
    }
}
