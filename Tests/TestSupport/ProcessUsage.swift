import Foundation

/// Another process's CPU time and memory, from /proc.
public enum ProcessUsage {
    /// User and system CPU time of `pid` so far, in ms (0 once it is gone).
    public static func cpuMilliseconds(_ pid: pid_t) -> Double {
        // Fields 14 and 15 of /proc/PID/stat, after the parenthesised command name.
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.range(of: ")", options: .backwards)
        else { return 0 }
        let fields = stat[end.upperBound...].split(separator: " ")
        let ticks = (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        return Double(ticks) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The CPU time of `pid` and of its children, in ms.
    public static func cpuMillisecondsWithChildren(_ pid: pid_t) -> Double {
        ([pid] + children(of: pid)).reduce(0) { $0 + cpuMilliseconds($1) }
    }

    /// The processes whose parent is `pid` (PostgreSQL's backends under its postmaster).
    public static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                let end = stat.range(of: ")", options: .backwards)
            else { return false }
            return stat[end.upperBound...].split(separator: " ").dropFirst().first.flatMap { pid_t($0) } == pid
        }
    }

    /// Resident memory of `pid` now, in KB.
    public static func residentKilobytes(_ pid: pid_t) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
