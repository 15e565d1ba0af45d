import Foundation

/// A process's CPU time and memory, from /proc (and this process's, from `getrusage`).
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

    /// The CPU time of `pid`, of its children, and of the children it has waited for (a
    /// PostgreSQL server's every process, including the backends of connections that ended), in ms.
    public static func cpuMillisecondsOfServer(_ pid: pid_t) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.range(of: ")", options: .backwards)
        else { return 0 }
        let fields = stat[end.upperBound...].split(separator: " ")
        let ticks = fields[11...14].reduce(0) { $0 + (Int($1) ?? 0) }
        let own = Double(ticks) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
        return own + children(of: pid).reduce(0) { $0 + cpuMilliseconds($1) }
    }

    /// The CPU time of this process (every thread), in ms.
    public static func cpuMillisecondsOfThisProcess() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let time = { (value: timeval) in Double(value.tv_sec) * 1000 + Double(value.tv_usec) / 1000 }
        return time(usage.ru_utime) + time(usage.ru_stime)
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
