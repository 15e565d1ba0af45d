import Foundation
import Synchronization
import TestSupport

/// Reads `/metrics` every second on a thread of its own, as a Prometheus scraping `serve`
/// would, until stopped; a bench's figures taken meanwhile include what that costs serve.
final class MetricsScraper: Sendable {
    private struct State {
        var running = true
        var scrapes = 0
        var failure: String?
    }
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    init(url: String) {
        Thread.detachNewThread { [self] in
            while state.withLock({ $0.running }) {
                do {
                    let reply = try HTTPClient.request("GET", url)
                    state.withLock { state in
                        if reply.status == 200 { state.scrapes += 1 } else { state.failure = "status \(reply.status)" }
                    }
                } catch {
                    state.withLock { $0.failure = "\(error)" }
                }
                Thread.sleep(forTimeInterval: 1)
            }
            finished.signal()
        }
    }

    /// Stops the scraping; returns how many reads answered 200.
    ///
    /// - Throws: when a read failed.
    func stop() throws -> Int {
        state.withLock { $0.running = false }
        finished.wait()
        let (scrapes, failure) = state.withLock { ($0.scrapes, $0.failure) }
        if let failure { throw BenchError("reading serve's /metrics failed: \(failure)") }
        return scrapes
    }
}
