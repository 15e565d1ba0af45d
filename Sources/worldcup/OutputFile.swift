import Foundation
import WorldCupModel

/// A file a command writes (export's backup, generate's output), checked before any work is
/// done, so that a path that cannot be written is said at once, in words about that path.
enum OutputFile {
    /// Throws when `path` cannot be the file written: a folder, a file that exists (unless
    /// `replacing`), or a place this user may not write.
    static func check(_ path: String, kind: FileKind, replacing: Bool) throws {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw WorldCupError.fileIsAFolder(path: path, kind: kind) }
            if !replacing { throw WorldCupError.fileExists(path: path, kind: kind) }
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
}
