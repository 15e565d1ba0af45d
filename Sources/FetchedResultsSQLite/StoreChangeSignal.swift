import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file descriptor that becomes readable when a store may have new commits, so that an event
/// loop can sleep until then instead of polling `FetchedResultsController.processPendingChanges()`
/// on a timer.
///
/// In WAL mode every commit, from any connection or process, writes to the store's `-wal` file;
/// this watches that file with inotify. It wakes for this process's own commits too, and for
/// checkpoints: `processPendingChanges()` then finds nothing, cheaply. The WAL file lasts
/// while any connection is open, so keep the store open as long as the signal.
///
/// A writer publishes its commit in the WAL index (shared memory, which inotify cannot see)
/// only after its last write to the WAL file, and for a big commit that takes a while: a look
/// made at once may find nothing new. So after each write the loop keeps looking for a short
/// while (``followUpTimeout()``), which is how a bulk import reaches an open list at once. The
/// looks start a millisecond after the write, when a small commit is nearly always visible,
/// and grow further apart.
///
/// The watch is for one event at a time (`IN_ONESHOT`), armed again by ``drain()``: a watched
/// file costs the kernel an event for every write to it, by any process, and a commit is
/// several writes; one event per wake is all a loop needs.
///
/// Linux only (inotify); elsewhere, or when the WAL file does not exist, the initialiser
/// returns nil and the app should poll.
public final class StoreChangeSignal {
    /// Readable when the store may have changed; wait on it with `poll` and then ``drain()``.
    public let fileDescriptor: Int32
    private let walPath: String

    /// How long after the last write to the WAL file the loop keeps looking, and how often at
    /// first and at most.
    static let followUpWindow = Duration.seconds(1)
    static let firstFollowUp = Duration.milliseconds(1)
    static let followUpInterval = Duration.milliseconds(20)

    private let clock = ContinuousClock()
    private var lastWrite: ContinuousClock.Instant?

    /// Watches the WAL file of the store at `databasePath`; nil without inotify or without a
    /// WAL file (a store not in WAL mode, or with no connection open).
    public init?(databasePath: String) {
        #if canImport(Glibc)
            let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard descriptor >= 0 else { return nil }
            // Kept only once watching: a failed initialiser with every property set runs
            // `deinit`, which would close the descriptor a second time (perhaps another
            // thread's by then).
            let walPath = databasePath + "-wal"
            guard Self.watch(walPath, on: descriptor) else {
                close(descriptor)
                return nil
            }
            fileDescriptor = descriptor
            self.walPath = walPath
        #else
            return nil
        #endif
    }

    deinit {
        close(fileDescriptor)
    }

    /// Reads away the pending notifications and watches for the next write, so the descriptor
    /// is readable again only after it. A write between the notification and this call wakes
    /// nothing, and needs not: the look that follows a drain, and the follow-up looks, see it.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var notified = false
        while read(fileDescriptor, &buffer, buffer.count) > 0 {
            lastWrite = clock.now
            notified = true
        }
        if notified { _ = Self.watch(walPath, on: fileDescriptor) }
    }

    /// Watches the WAL file at `path` for its next write; false when it cannot (no such file).
    private static func watch(_ path: String, on descriptor: Int32) -> Bool {
        #if canImport(Glibc)
            return inotify_add_watch(descriptor, path, UInt32(IN_MODIFY) | UInt32(IN_ONESHOT)) >= 0
        #else
            return false
        #endif
    }

    /// The longest the event loop may sleep before its next look, in milliseconds: during the
    /// moment after a write to the WAL file (its commit may not be visible yet), as long as it
    /// has been since the write, from 1 ms up to 20 ms — a commit seen a millisecond late
    /// rather than an interval late, at a handful of looks more per write; nil when the last
    /// write is long past and only the descriptor needs watching.
    public func followUpTimeout() -> Int32? {
        guard let lastWrite else { return nil }
        let since = clock.now - lastWrite
        guard since < Self.followUpWindow else { return nil }
        return Int32(min(max(since, Self.firstFollowUp), Self.followUpInterval) / .milliseconds(1))
    }
}
