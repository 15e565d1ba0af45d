import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

extension ServeRoutes {
    /// The event stream: what the viewer missed since the last event it names
    /// (`Last-Event-ID`, as a browser coming back sends it), or a snapshot, then each change
    /// set, until the viewer leaves or the server stops. A viewer that is cut off, or still
    /// there when the server stops, has its connection closed: a write to one that reads
    /// nothing waits until then. A viewer's place is freed as soon as its connection closes
    /// (which ``ViewerHeartbeat`` shows within seconds). Past the bound of viewers: 503.
    func events(_ request: Request, channel: any Channel) async throws -> Response {
        let lastEventID = request.headers[HTTPField.Name("Last-Event-ID")!]
            .flatMap { $0.utf8.count <= 256 ? $0 : nil }
        guard
            let (stream, end) = await follower.subscribe(
                lastEventID: lastEventID, cutOff: { channel.close(promise: nil) })
        else {
            throw Refusal(
                .serviceUnavailable,
                "This server already has \(follower.hub.maximumViewers) viewers, as many as it takes "
                    + "(--max-viewers): try again in a few seconds.", retryAfter: Self.viewerRetrySeconds)
        }
        channel.closeFuture.whenComplete { _ in end() }
        var headers = ServeHeaders.fields(type: "text/event-stream; charset=utf-8")
        // Each event passed on as it is written, by nginx and the proxies that read this header.
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                // A browser that lost the stream asks again after a second.
                try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
                // A stopping server ends every stream, so that it does not wait for viewers to
                // leave, and closes the connection in case a write is stuck.
                try await withGracefulShutdownHandler {
                    for await buffer in stream.cancelOnGracefulShutdown() { try await writer.write(buffer) }
                    try await writer.finish(nil)
                } onGracefulShutdown: {
                    channel.close(promise: nil)
                }
            })
    }
}
