import Hummingbird

/// The scorers' routes' check: `Authorization: Bearer TOKEN` against the scorer token, or a
/// 401 or 403 that says what to do.
struct ScorerAuthorisation<Context: RequestContext>: RouterMiddleware {
    /// Nil when the server is read-only: no request may score.
    let token: ScorerToken?

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
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
        return try await next(request, context)
    }
}
