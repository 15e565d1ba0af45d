#if canImport(Glibc)
import Glibc
#endif

/// An advisory, cross-process exclusive lock on a file (`flock`), held for one closure.
///
/// `flock` locks are independent of the POSIX record locks SQLite takes, so this never
/// interferes with the database's own locking.
enum FileLock {
    static func withExclusiveLock<T>(path: String, _ body: () throws -> T) throws -> T {
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            // A folder we cannot write to: the store is unusable for writing anyway.
            throw WorldCupError.storeReadOnly(path: path)
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
