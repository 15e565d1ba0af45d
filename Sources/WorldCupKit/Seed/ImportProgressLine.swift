/// The line that shows how an import goes on a terminal: a bar, the share done, the count, the
/// rate and the time left (once done: how long it took).
public enum ImportProgressLine {
    /// The line after `done` of `total` teams in `elapsedSeconds`.
    public static func text(label: String, done: Int, total: Int, elapsedSeconds: Double, barWidth: Int = 24) -> String {
        let share = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int((share * Double(barWidth)).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
        let counts = "\(Thousands.grouped(done)) of \(Thousands.grouped(total)) teams"
        let head = "\(label) [\(bar)] \(Int((share * 100).rounded(.down)))%  \(counts)"
        guard done < total else { return head + "  ·  done in " + duration(elapsedSeconds) }
        // A rate from the first moments would swing wildly: wait for a fifth of a second.
        guard done > 0, elapsedSeconds >= 0.2 else { return head }
        let rate = Double(done) / elapsedSeconds
        return head + "  ·  \(Thousands.grouped(Int(rate)))/s  ·  " + duration(Double(total - done) / rate) + " left"
    }

    /// "0.4 s", "12 s", "2 min 05 s".
    static func duration(_ seconds: Double) -> String {
        if seconds < 10 { return String(Int(seconds * 10) / 10) + "." + String(Int(seconds * 10) % 10) + " s" }
        let whole = Int(seconds.rounded())
        guard whole >= 60 else { return "\(whole) s" }
        let rest = whole % 60
        return "\(whole / 60) min \(rest < 10 ? "0" : "")\(rest) s"
    }
}
