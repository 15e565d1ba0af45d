import Hummingbird
import ServiceLifecycle

/// A comment line (`:`) on every event stream every few seconds, which browsers ignore: a
/// viewer that left without a word (a phone put away, a tab closed) is noticed at the next
/// one, when its connection answers with a reset, and its place under the bound of viewers
/// is freed; and a quiet stream stays open through proxies that close idle ones.
struct ViewerHeartbeat: Service {
    static let interval = Duration.seconds(5)
    static let comment = ByteBuffer(string: ":\n\n")

    let hub: ViewerHub

    func run() async {
        await cancelWhenGracefulShutdown {
            while (try? await Task.sleep(for: Self.interval)) != nil { hub.publish(Self.comment) }
        }
    }
}
