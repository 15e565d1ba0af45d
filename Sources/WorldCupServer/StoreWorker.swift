import Dispatch
import WorldCupModel

/// A store used from one serial queue, for the server's requests: stores are not `Sendable`
/// (a PostgreSQL store holds one connection), and their calls block, so they run here and not
/// on the event loops or Swift's cooperative threads. Opened at its first call.
final class StoreWorker: @unchecked Sendable {
    private let queue: DispatchQueue
    private let open: @Sendable () throws -> any ScoreStore
    /// Touched on `queue` only.
    private var store: (any ScoreStore)?

    init(label: String, open: @escaping @Sendable () throws -> any ScoreStore) {
        queue = DispatchQueue(label: label)
        self.open = open
    }

    /// Runs `body` with the store, on the worker's queue.
    func run<T: Sendable>(_ body: @escaping @Sendable (any ScoreStore) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { reply in
            queue.async { [self] in
                reply.resume(
                    with: Result {
                        if store == nil { store = try open() }
                        return try body(store!)
                    })
            }
        }
    }

    /// Runs `body` with the store and waits for it (before the server starts).
    func runNow<T>(_ body: (any ScoreStore) throws -> T) throws -> T {
        try queue.sync {
            if store == nil { store = try open() }
            return try body(store!)
        }
    }
}
