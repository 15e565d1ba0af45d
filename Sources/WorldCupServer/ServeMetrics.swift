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
        viewers = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "worldcup", metricName: "viewers", unitName: "",
                helpText: "Viewers following the standings now."))
        eventsSent = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "worldcup", metricName: "events_sent", unitName: "total",
                helpText: "Events handed to viewers (each change set once per viewer)."))
    }

    /// Counts a refused request.
    func refused(_ status: HTTPResponse.Status) {
        let reason = status.reasonPhrase.lowercased().split(separator: " ").joined(separator: "_")
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "worldcup", metricName: "refused_requests", unitName: "total",
                helpText: "Requests answered with a 4xx or 5xx, by reason."),
            labels: [("reason", reason)]
        ).increment()
    }

    /// The text Prometheus reads, with `viewers` following now.
    func text(viewers count: Int) -> [UInt8] {
        viewers.set(Double(count))
        return registry.emitToBuffer()
    }
}
