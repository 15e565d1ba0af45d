import Foundation
import WorldCupStores

/// The scoreboard's own standings controller doing one plain full `performFetch()` on a shared
/// store: what the scoreboard's load behind its first frame is held to, measured on the same
/// store over the same network. The bench runs it as a child on a host (`ip netns exec`), as
/// `worldcup-bench --full-fetch-of URI --write-to FILE`, which writes the milliseconds there.
enum FullFetchProbe {
    static func milliseconds(uri: String) throws -> Double {
        let controller = try PostgreSQLTeamStore.open(conninfo: uri).standingsController(cacheDirectory: nil)
        let start = Clock.now()
        try controller.performFetch()
        return Clock.milliseconds(since: start)
    }

    /// The probe run as a child with `launcher` before it (`ip netns exec HOST`): one fetch's
    /// milliseconds.
    static func run(uri: String, launcher: [String], folder: String) throws -> Double {
        let file = folder + "/full-fetch-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let bench = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let child = try runChild(["/usr/bin/env"] + launcher + [bench, "--full-fetch-of", uri, "--write-to", file])
        guard child.status == 0, let text = try? String(contentsOfFile: file, encoding: .utf8),
            let milliseconds = Double(text)
        else { throw BenchError("the full fetch of the standings on \(uri) failed (status \(child.status))") }
        return milliseconds
    }
}
