import Foundation
import GRDB
@testable import WorldCupKit

/// A fresh folder under the system temporary directory, removed when the value goes away.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "worldcup-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String, contents: String) -> String {
        file(name, data: Data(contents.utf8))
    }

    func file(_ name: String, data: Data) -> String {
        let filePath = path + "/" + name
        FileManager.default.createFile(atPath: filePath, contents: data)
        return filePath
    }
}

enum Fixtures {
    /// The repository's own seed.json.
    static let seedPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("seed.json").path

    static func seededStore(in directory: TemporaryDirectory) throws -> TeamStore {
        let store = try TeamStore.open(path: directory.path + "/store.sqlite")
        try store.seedIfNeeded { (try SeedFile.read(path: seedPath), seedPath) }
        return store
    }

    static func teamCount(_ store: TeamStore) throws -> Int {
        try store.pool.read { db in try Team.fetchCount(db) }
    }
}
