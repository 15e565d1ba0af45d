import Dispatch
import Foundation

/// A monotonic clock in nanoseconds.
enum Clock {
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    static func milliseconds(since start: UInt64) -> Double { Double(now() - start) / 1e6 }
}

/// The median, 99th percentile and largest of some samples (milliseconds).
struct Percentiles {
    let count: Int
    let p50: Double
    let p99: Double
    let max: Double

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        p50 = sorted.isEmpty ? .nan : sorted[sorted.count / 2]
        p99 = sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        max = sorted.last ?? .nan
    }
}

extension Percentiles {
    /// Times `body` `rounds` times; `between` runs after each round, outside the timed part.
    /// A tenth as many rounds run first, untimed, so that every contender is timed warm: the
    /// first rounds after a connection opens or a controller fetches pay for cold caches, and
    /// at 200 rounds they moved a p50 by half (ours at 32 teams: 0.10 and 0.17 ms in two runs).
    static func measure(_ rounds: Int, _ body: () throws -> Void, between: () throws -> Void = {}) throws -> Percentiles
    {
        Percentiles(try samples(rounds, body, between: between))
    }

    /// The times of ``measure(_:_:between:)``, in milliseconds, for a caller that gathers
    /// several runs into one set of percentiles.
    static func samples(_ rounds: Int, _ body: () throws -> Void, between: () throws -> Void = {}) throws -> [Double] {
        for _ in 0..<warmUpRounds(rounds) {
            try body()
            try between()
        }
        var samples: [Double] = []
        for _ in 0..<rounds {
            let start = Clock.now()
            try body()
            samples.append(Clock.milliseconds(since: start))
            try between()
        }
        return samples
    }

    /// The untimed rounds before `rounds` timed ones.
    static func warmUpRounds(_ rounds: Int) -> Int { rounds / 10 }
}

/// A finished child process: its status, wall time and peak memory.
struct ChildRun {
    let status: Int32
    let seconds: Double
    let peakKilobytes: Int
}

/// Runs a program and waits for it, collecting its own resource usage (wait4), so the peak
/// memory is the child's alone.
func runChild(_ arguments: [String], quiet: Bool = true) throws -> ChildRun {
    var pid: pid_t = 0
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    if quiet { posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0) }
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let start = Clock.now()
    let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
    guard spawned == 0 else { throw BenchError("cannot start \(arguments[0]): error \(spawned)") }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    return ChildRun(status: status, seconds: Clock.milliseconds(since: start) / 1000, peakKilobytes: usage.ru_maxrss)
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
