import Foundation
import WorldCupModel

/// A file a command writes (export's backup, generate's output), checked before any work is
/// done, so that a path that cannot be written is said at once, in words about that path.
enum OutputFile {
    /// Throws when `path` cannot be the file written: a folder, a file that exists (unless
    /// `replacing`), or a place this user may not write. A device or a pipe (`/dev/stdout`) is
    /// written into, not replaced, so it needs no `replacing`.
    static func check(_ path: String, kind: FileKind, replacing: Bool) throws {
        if isStandardOutput(path) { return }
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw WorldCupError.fileIsAFolder(path: path, kind: kind) }
            if !replacing, isRegularFile(path) { throw WorldCupError.fileExists(path: path, kind: kind) }
            if !files.isWritableFile(atPath: path) {
                throw WorldCupError.fileUnwritable(path: path, kind: kind, reason: "permission denied")
            }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        guard files.fileExists(atPath: folder, isDirectory: &isDirectory) else {
            throw WorldCupError.fileUnwritable(path: path, kind: kind, reason: "its folder \(folder) does not exist")
        }
        guard isDirectory.boolValue else {
            throw WorldCupError.fileUnwritable(path: path, kind: kind, reason: "\(folder) is not a folder")
        }
        guard files.isWritableFile(atPath: folder) else {
            throw WorldCupError.fileUnwritable(
                path: path, kind: kind, reason: "its folder \(folder) may not be written")
        }
    }

    /// Throws when `path`, its links followed, is the SQLite store at `storePath` or a file SQLite
    /// keeps beside it (its WAL, shared memory or journal): writing there loses the store.
    static func refuseStoreFiles(_ path: String, storePath: String, kind: FileKind) throws {
        let written = resolved(path)
        let store = resolved(storePath)
        guard ["", "-wal", "-shm", "-journal"].contains(where: { store + $0 == written }) else { return }
        throw WorldCupError.fileIsTheStore(path: path, kind: kind, store: storePath)
    }

    /// Writes `data` to `path`, links followed. A regular file is replaced by a finished copy
    /// renamed over it, so a failed write leaves the old one whole; a device or a pipe is
    /// written into.
    static func write(_ data: Data, to path: String, kind: FileKind) throws {
        let target = resolved(path)
        do {
            if FileManager.default.fileExists(atPath: target), !isRegularFile(target) {
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: target))
                try handle.write(contentsOf: data)
                try handle.close()
            } else {
                try data.write(to: URL(fileURLWithPath: target), options: .atomic)
            }
        } catch {
            throw WorldCupError.fileUnwritable(path: path, kind: kind, reason: error.systemReason)
        }
    }

    /// Whether `path` names this process's standard output (`/dev/stdout` and its aliases),
    /// which is written through the open descriptor: `export /dev/stdout >> all.json` appends,
    /// as the shell set it up, where opening the path anew would empty the file or replace it.
    static func isStandardOutput(_ path: String) -> Bool {
        ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"].contains(path)
    }

    /// `path` absolute, with every link, `.` and `..` resolved as the system opens it (a `..`
    /// after a link leads out of the link's target, not back to where the link is).
    private static func resolved(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        // A file that does not exist yet: its folder's real path, then its name.
        let name = (path as NSString).lastPathComponent
        let parent = (path as NSString).deletingLastPathComponent
        guard let real = realpath(parent.isEmpty ? "." : parent, nil) else { return path }
        defer { free(real) }
        return String(cString: real) + "/" + name
    }

    /// Whether `path`, its links followed, is a regular file.
    private static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}
