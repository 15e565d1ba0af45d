import NIOCore

/// Caps each connection's kernel send buffer. A viewer that stops reading then backs up into
/// its own bounded buffer (``ViewerHub``) within a few hundred kilobytes and is cut off there,
/// instead of hiding megabytes of events in the kernel, which grows a send buffer up to 4 MB.
final class SendBufferLimit: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    /// Bytes asked for (Linux doubles it for its own bookkeeping).
    static let bytes: SocketOptionValue = 64 * 1024

    func handlerAdded(context: ChannelHandlerContext) {
        _ = context.channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: Self.bytes)
    }
}
