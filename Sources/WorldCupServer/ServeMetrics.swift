import HTTPTypes
import Prometheus

/// What `/metrics` tells Prometheus: the viewers following now, the events written to them, the
/// change sets followed and how long each took to reach the viewers, the snapshots built, the
/// viewers cut off, the store's connection, and the requests refused, by reason (the status's
/// reason phrase: `too_many_requests`…).
final class ServeMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let viewers: Gauge
    /// Events handed to viewers: snapshot parts and missed change sets to one that joins, each
    /// change set once per viewer following.
    let eventsSent: Counter
    /// Change sets of the standings published (Prometheus' `rate()` makes them per second).
    let changeSets: Counter
    /// From a change set reported to its event in every viewer's queue.
    let changeSetDelivery: DurationHistogram
    /// Snapshots of the whole standings read for viewers that joined.
    let snapshotsBuilt: Counter
    /// Viewers whose queue overflowed, whose connection was closed.
    let viewersCutOff: Counter
    /// 1 while the follower reaches the store, 0 while it reconnects.
    let storeConnected: Gauge

    init() {
        viewers = registry.makeGauge(
            descriptor: Self.name("viewers", help: "Viewers following the standings now."))
        eventsSent = registry.makeCounter(
            descriptor: Self.name(
                "events_sent", unit: "total", help: "Events handed to viewers (each change set once per viewer)."))
        changeSets = registry.makeCounter(
            descriptor: Self.name(
                "change_sets", unit: "total", help: "Change sets of the standings published to viewers."))
        changeSetDelivery = registry.makeDurationHistogram(
            descriptor: Self.name(
                "change_set_delivery", unit: "seconds",
                help: "Seconds from when the results controller reported a change set (the store keeps no "
                    + "commit time) to when its event was in every viewer's queue."),
            buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500].map { .milliseconds($0) })
        snapshotsBuilt = registry.makeCounter(
            descriptor: Self.name(
                "snapshots_built", unit: "total", help: "Snapshots of the whole standings read for joining viewers."))
        viewersCutOff = registry.makeCounter(
            descriptor: Self.name(
                "viewers_cut_off", unit: "total",
                help: "Viewers disconnected because they read too slowly (their queue overflowed)."))
        storeConnected = registry.makeGauge(
            descriptor: Self.name(
                "store_connected", help: "1 while serve's follower reaches the store, 0 while it reconnects."))
        storeConnected.set(1.0)
    }

    private static func name(_ metric: String, unit: String = "", help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "worldcup", metricName: metric, unitName: unit, helpText: help)
    }

    /// Counts a refused request.
    func refused(_ status: HTTPResponse.Status) {
        let reason = status.reasonPhrase.lowercased().split(separator: " ").joined(separator: "_")
        registry.makeCounter(
            descriptor: Self.name(
                "refused_requests", unit: "total", help: "Requests answered with a 4xx or 5xx, by reason."),
            labels: [("reason", reason)]
        ).increment()
    }

    /// The text Prometheus reads, with `viewers` following now.
    func text(viewers count: Int) -> [UInt8] {
        viewers.set(Double(count))
        return registry.emitToBuffer()
    }
}
