import Hummingbird
import NIOCore

/// The bounds on every request, checked before any route answers it: the target's length and
/// the body's size (none of the requests needs a body; one is read and dropped so that the
/// connection can take the next request).
struct RequestLimits<Context: RequestContext>: RouterMiddleware {
    /// The longest request body taken.
    static var maximumBody: Int { 64 * 1024 }
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
        do {
            _ = try await request.collectBody(upTo: Self.maximumBody)
        } catch is NIOTooManyBytesError {
            // A body without a length (chunked) that grows past the bound.
            throw Refusal(.contentTooLarge, "Request bodies are limited to 64 KB.")
        } catch {
            throw Refusal(.badRequest, "The request's body is malformed.")
        }
        return try await next(request, context)
    }
}
