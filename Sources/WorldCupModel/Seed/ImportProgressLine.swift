/// The line that shows how an import goes on a terminal: a bar, the share done, the teams so
/// far, the rate and the time left (once done: how long it took).
public enum ImportProgressLine {
    /// The line for `status` after `elapsedSeconds`.
    public static func text(label: String, status: ImportStatus, elapsedSeconds: Double, barWidth: Int = 24) -> String {
        let share = min(1, max(0, status.share))
        let filled = Int((share * Double(barWidth)).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
        let teams = "\(Thousands.grouped(status.teams)) team\(status.teams == 1 ? "" : "s")"
        let head = "\(label) [\(bar)] \(Int((share * 100).rounded(.down)))%  \(teams)"
        guard !status.isDone else { return head + "  ·  done in " + duration(elapsedSeconds) }
        // A rate from the first moments would swing wildly: wait for a fifth of a second.
        guard share > 0, elapsedSeconds >= 0.2 else { return head }
        let rate = Double(status.teams) / elapsedSeconds
        let left = elapsedSeconds * (1 - share) / share
        return head + "  ·  \(Thousands.grouped(Int(rate)))/s  ·  " + duration(left) + " left"
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
