import Hummingbird

/// The scores' check: takes a tap from the client's bound, or refuses the score with 429 and
/// when to try again.
struct TapLimit: RouterMiddleware {
    typealias Context = ServeRequestContext

    let taps: TapLimiter
    /// Whether clients are named by `X-Forwarded-For` (``ClientAddress``).
    let behindProxy: Bool

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let client = ClientAddress.of(request, channel: context.channel, behindProxy: behindProxy)
        if let wait = taps.take(for: client) {
            throw Refusal(
                .tooManyRequests,
                "Too many taps from this phone: at most \(taps.perSecond) a second. Nothing was changed; "
                    + "tap again in a moment.", retryAfter: wait)
        }
        return try await next(request, context)
    }
}
