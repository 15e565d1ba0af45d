import Foundation
@_exported import Synchronization
@_exported import ThrowawayPostgreSQL

/// A small deterministic random generator, so a failing randomised test can be replayed from
/// its printed seed.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A value behind the standard library's `Mutex`, for closures that escape (a thread, a
/// database's trace hook): a `Mutex` cannot be copied into them itself.
public final class Shared<Value>: Sendable {
    public let mutex: Mutex<Value>
    public init(_ value: sending Value) { mutex = Mutex(value) }
    public func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try mutex.withLock(body)
    }
}

/// The folder this test process's temporary files go in. Tests let go of their files, but not
/// always of everything in them (a controller released after its test's folder saves its cache
/// again), and the test runner ends the process without running `atexit` handlers: so each
/// process's folder is named after its process id, and the first test of a later process
/// removes the folders of processes that have ended.
public let testProcessFolder: String = {
    let prefix = "worldcup-tests-", temporary = NSTemporaryDirectory()
    for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] where name.hasPrefix(prefix) {
        // "worldcup-tests-PID-UUID": another checkout's older folders ("worldcup-tests-UUID")
        // name no process, and are left alone.
        let rest = name.dropFirst(prefix.count)
        guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]),
            UUID(uuidString: String(rest[rest.index(after: dash)...])) != nil
        else { continue }
        if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(atPath: temporary + name) }
    }
    let folder = temporary + prefix + "\(getpid())-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
}()

/// A new path in ``testProcessFolder``: `prefix`, a unique part, then `suffix`.
public func temporaryPath(_ prefix: String, suffix: String = "") -> String {
    testProcessFolder + "/" + prefix + UUID().uuidString + suffix
}

/// A fresh folder in ``testProcessFolder``, removed when the value goes away.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init() {
        path = temporaryPath("folder-")
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A store file's path inside the folder.
    public var store: String { path + "/store.sqlite" }

    /// Writes a file into the folder and returns its path.
    public func file(_ name: String, contents: String) -> String {
        file(name, data: Data(contents.utf8))
    }

    public func file(_ name: String, data: Data) -> String {
        let filePath = path + "/" + name
        precondition(FileManager.default.createFile(atPath: filePath, contents: data), "cannot create \(filePath)")
        return filePath
    }
}

/// A randomised test's seed: `FETCHED_RESULTS_SEED` when set, else the test's own fixed seed;
/// printed after the test's name, so that a failure can be replayed.
public func randomisedTestSeed(_ fixed: UInt64, for test: String) -> UInt64 {
    let seed = UInt64(ProcessInfo.processInfo.environment["FETCHED_RESULTS_SEED"] ?? "") ?? fixed
    print("\(test) seed \(seed)")
    return seed
}
