import Foundation
import GRDB
import WorldCupModel

/// `serve`'s token digest, kept in the store so that every `serve` on it accepts one token.
extension TeamStore {
    public func scorerTokenDigest() throws -> [UInt8]? {
        try StoreErrors.translating(path: path) {
            try pool.read { db in try Self.digest(db) }
        }
    }

    public func keepScorerTokenDigest(_ digest: [UInt8], replacing: Bool) throws -> [UInt8] {
        try StoreErrors.translating(path: path) {
            try pool.write { db in
                try db.execute(
                    sql: "INSERT OR \(replacing ? "REPLACE" : "IGNORE") INTO serveToken (role, digest) "
                        + "VALUES ('scorer', ?)",
                    arguments: [Data(digest)])
                return try Self.digest(db) ?? digest
            }
        }
    }

    private static func digest(_ db: Database) throws -> [UInt8]? {
        try Data.fetchOne(db, sql: "SELECT digest FROM serveToken WHERE role = 'scorer'").map { [UInt8]($0) }
    }
}
