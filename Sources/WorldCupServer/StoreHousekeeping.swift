import ServiceLifecycle
import WorldCupModel

/// The store's idle housekeeping (`ScoreStore.tidyWhileIdle()`: pruning old change history,
/// SQLite's checkpoint) on the writing store's queue, between requests, when the server starts
/// (what earlier writers left) and once a minute after: a scoreboard does it when its keys
/// are idle, and a server has no such moment.
struct StoreHousekeeping: Service {
    static let interval = Duration.seconds(60)

    let writer: StoreWorker

    func run() async {
        await cancelWhenGracefulShutdown {
            repeat {
                _ = try? await writer.run { $0.tidyWhileIdle() }
            } while (try? await Task.sleep(for: Self.interval)) != nil
        }
    }
}
