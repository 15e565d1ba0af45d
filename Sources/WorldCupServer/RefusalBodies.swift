import Hummingbird
import WorldCupModel

/// The router's outermost middleware: whatever a route or a middleware throws becomes a JSON
/// `{"error": …}` that says what to do — a ``Refusal`` as it is, a ``WorldCupError`` or a
/// ``StoreError`` as the status it means, a path no route has as a 404, anything else as a 500 — and every answer
/// of 400 or more is counted in the metrics.
struct RefusalBodies: RouterMiddleware {
    typealias Context = ServeRequestContext

    let metrics: ServeMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = Self.refusal(for: error, path: request.uri.path).response
        }
        if response.status.code >= 400 { metrics.refused(response.status) }
        return response
    }

    private static func refusal(for error: any Error, path: String) -> Refusal {
        switch error {
        case let refusal as Refusal:
            return refusal
        case let error as WorldCupError:
            return refusal(for: error)
        case let error as StoreError:
            return refusal(for: error)
        // What the router throws when no route has the path (or the method).
        case let error as HTTPError where error.status == .notFound:
            return Refusal(.notFound, "Nothing is at \(path): the standings are at /.")
        default:
            return Refusal(.internalServerError, "The server failed: \(error)")
        }
    }

    private static func refusal(for error: WorldCupError) -> Refusal {
        switch error {
        case .storeReadOnly:
            return Refusal(.forbidden, "The store is read-only: nothing was changed.")
        case .winsOverflow:
            return Refusal(.conflict, error.description)
        case .storeBusy:
            return Refusal(.serviceUnavailable, error.description)
        default:
            return Refusal(.internalServerError, error.description)
        }
    }

    private static func refusal(for error: StoreError) -> Refusal {
        switch error.reason {
        case .notPermitted:
            return Refusal(.forbidden, error.description)
        case .unreachable, .scoreInDoubt:
            return Refusal(.serviceUnavailable, error.description)
        }
    }
}
