import Hummingbird
import NIOCore

/// Hummingbird's basic request context, and the request's connection: a viewer whose writes are
/// stuck (a phone that stopped reading) is ended by closing it, as nothing else unblocks them.
struct ServeRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
