import Foundation
import TestSupport

/// The two stores every command is tested on.
enum StoreKind: String, CaseIterable, Sendable {
    case sqlite, postgresql

    /// A new store of this kind, seeded by the first command that opens it.
    func makeStore() throws -> TestStore {
        let folder = TemporaryDirectory()
        switch self {
        case .sqlite: return TestStore(db: folder.store, folder: folder, database: nil)
        case .postgresql:
            let database = try SharedDatabase()
            return TestStore(db: database.uri(), folder: folder, database: database)
        }
    }
}

/// A store for a test: its `--db`, a folder for the test's files, and the PostgreSQL database.
struct TestStore {
    let db: String
    let folder: TemporaryDirectory
    let database: SharedDatabase?

    /// Runs `worldcup` on this store, as a script would.
    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> WorldCupProcess.Result {
        try WorldCupProcess.run(arguments + ["--db", db, "--seed", WorldCupProcess.seedPath], environment: environment)
    }
}
