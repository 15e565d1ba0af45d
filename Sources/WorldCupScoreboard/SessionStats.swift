import Foundation
import TerminalUI
import WorldCupModel

/// Timing figures of one scoreboard session, written to a file when it ends (`--stats FILE`),
/// for benchmarks: how long the first frame took, how long each key took until the terminal
/// was flushed, and the peak memory.
///
/// The file has one `name value` pair per line: `first_frame_ms` (from the start of the
/// command to the first flushed frame), `fetch_source` (`cache` or `store`), one
/// `key_to_flush_ms` per key, `all_loaded_ms` once every team is loaded behind the first frame
/// (from the start too) and `loaded_from` (`cache` or `store`), one `load_step_ms` per step of
/// that load, one `search_step_ms` per step of a search's count between keys, one
/// `filter_step_ms` per change of the list to a filter's text, `peak_rss_kb`,
/// and for measuring across programs, on the
/// machine's monotonic clock (the same in every process and network namespace): one
/// `win_key_at_ms` per win this scoreboard committed (when its key arrived), one
/// `external_frame_at_ms` per frame that showed other programs' changes.
public final class SessionStats {
    private let path: String
    private let start: UInt64
    private var lines: [String] = []
    private var keyStart: UInt64?

    /// Starts the clock; create it as early as the command starts.
    public init(path: String) {
        self.path = path
        start = DispatchTime.now().uptimeNanoseconds
    }

    func firstFrameShown(fetchSource: String) {
        lines.append("first_frame_ms \(Self.milliseconds(since: start))")
        lines.append("fetch_source \(fetchSource)")
    }

    /// Every team of a progressive fetch is loaded (the first frame showed the first ones),
    /// the rest from `source` (`cache` or `store`).
    func standingsLoaded(source: String) {
        lines.append("all_loaded_ms \(Self.milliseconds(since: start))")
        lines.append("loaded_from \(source)")
    }

    /// Runs one step of the load behind the first frame and records how long it took: the
    /// longest a key can wait for it.
    func timeLoadStep(_ step: () -> Void) {
        let stepStart = DispatchTime.now().uptimeNanoseconds
        step()
        lines.append("load_step_ms \(Self.milliseconds(since: stepStart))")
    }

    /// Runs one step of a search's count between keys and records how long it took: the
    /// longest a key can wait for it.
    func timeSearchStep(_ step: () -> Void) {
        let stepStart = DispatchTime.now().uptimeNanoseconds
        step()
        lines.append("search_step_ms \(Self.milliseconds(since: stepStart))")
    }

    /// Changes the list to a filter's text and records how long it took: the longest a key
    /// typed after it can wait.
    func timeFilterStep(_ step: () -> Void) {
        let stepStart = DispatchTime.now().uptimeNanoseconds
        step()
        lines.append("filter_step_ms \(Self.milliseconds(since: stepStart))")
    }

    func keyReceived() {
        keyStart = DispatchTime.now().uptimeNanoseconds
    }

    func frameFlushed() {
        guard let keyStart else { return }
        lines.append("key_to_flush_ms \(Self.milliseconds(since: keyStart))")
        self.keyStart = nil
    }

    /// A win was committed: records when the key that asked for it arrived (its commit, seen
    /// from elsewhere, can come before this process hears the reply).
    func winCommitted() {
        lines.append("win_key_at_ms \(Self.milliseconds(since: 0, until: keyStart))")
    }

    func externalChangesFlushed() {
        lines.append("external_frame_at_ms \(Self.milliseconds(since: 0))")
    }

    /// Writes the file; a stats file that cannot be written is reported on stderr.
    func write() {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        lines.append("peak_rss_kb \(usage.ru_maxrss)")
        // Written in place (not a finished copy renamed over the path): `--stats /dev/stdout`
        // writes to the terminal rather than putting a file where the device was.
        let text = Data((lines.joined(separator: "\n") + "\n").utf8)
        if (try? text.write(to: URL(fileURLWithPath: path))) == nil {
            let shown = TerminalText.sanitized(path)
            try? FileHandle.standardError.write(
                contentsOf: Data("worldcup: cannot write the stats file \(shown)\n".utf8))
        }
    }

    private static func milliseconds(since start: UInt64, until end: UInt64? = nil) -> String {
        String(format: "%.3f", Double((end ?? DispatchTime.now().uptimeNanoseconds) - start) / 1e6)
    }
}
