import Foundation
import TestSupport

/// Where the writers bench runs each side on a machine of several cores: the followers (this
/// process's threads made from here on) on the last core, as screens on machines of their own
/// would be, and the PostgreSQL server and pgbench on the others. Without it the eleven followers
/// take the CPU the writers need, and what is measured is the machine's cores, not the feed.
/// The followers still look at the server, whose side of their looks the server's cores pay.
struct CorePlacement {
    /// The followers' core.
    let followerCore: Int
    /// The server's and pgbench's cores, as `taskset` takes them ("0-2").
    let serverCores: String
    static let taskset = "/usr/bin/taskset"

    /// A placement on this machine, or nil with a single core or without `taskset`.
    static func onThisMachine() -> CorePlacement? {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard cores >= 2, FileManager.default.isExecutableFile(atPath: taskset) else { return nil }
        return CorePlacement(followerCore: cores - 1, serverCores: cores == 2 ? "0" : "0-\(cores - 2)")
    }

    /// Puts the server's processes on the server's cores; the backends and workers it starts
    /// later inherit them.
    func placeServer(postmaster: pid_t) throws {
        for pid in [postmaster] + ProcessUsage.children(of: postmaster) {
            // A child may have exited since it was listed.
            _ = try runChild([Self.taskset, "--all-tasks", "--pid", "--cpu-list", serverCores, "\(pid)"])
        }
    }

    /// Puts the main thread (whose thread id is the process's), and the threads it makes from now
    /// on, on the followers' core.
    func placeFollowers() throws {
        precondition(Thread.isMainThread, "the followers' threads are made by the main thread")
        let run = try runChild([Self.taskset, "--pid", "--cpu-list", "\(followerCore)", "\(getpid())"])
        guard run.status == 0 else { throw BenchError("taskset could not place this thread") }
    }

    /// `arguments` run on the server's cores.
    func onServerCores(_ arguments: [String]) -> [String] {
        [Self.taskset, "--cpu-list", serverCores] + arguments
    }
}
