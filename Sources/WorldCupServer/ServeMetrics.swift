import HTTPTypes
import Prometheus

/// What `/metrics` tells Prometheus: the viewers following now, the events written to them, and
/// the requests refused, by reason (the status's reason phrase: `too_many_requests`…).
final class ServeMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let viewers: Gauge
    /// Events handed to viewers: snapshot parts and missed change sets to one that joins, each
    /// change set once per viewer following.
    let eventsSent: Counter

    init() {
        viewers = registry.makeGauge(name: "worldcup_viewers", help: "Viewers following the standings now.")
        eventsSent = registry.makeCounter(
            name: "worldcup_events_sent_total", help: "Events handed to viewers (each change set once per viewer).")
    }

    /// Counts a refused request.
    func refused(_ status: HTTPResponse.Status) {
        let reason = status.reasonPhrase.lowercased().split(separator: " ").joined(separator: "_")
        registry.makeCounter(
            name: "worldcup_refused_requests_total", labels: [("reason", reason)],
            help: "Requests answered with a 4xx or 5xx, by reason."
        ).increment()
    }

    /// The text Prometheus reads, with `viewers` following now.
    func text(viewers count: Int) -> [UInt8] {
        viewers.set(Double(count))
        return registry.emitToBuffer()
    }
}
