import GRDB
import WorldCupModel

/// Turns SQLite's result codes into messages a user can act on.
enum StoreErrors {
    /// What a store is, in messages about a file that is not one.
    static let database = "an SQLite database"

    static func translating<T>(path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw translate(error, path: path)
        }
    }

    static func translate(_ error: DatabaseError, path: String) -> WorldCupError {
        switch error.resultCode {
        case .SQLITE_NOTADB: return .storeNotADatabase(path: path, database: database)
        case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN:
            return .storeReadOnly(path: path)
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .storeBusy(path: path)
        case .SQLITE_CORRUPT: return .storeCorrupt(path: path)
        default: return .storeFailed(path: path, reason: error.message ?? "\(error)")
        }
    }
}
