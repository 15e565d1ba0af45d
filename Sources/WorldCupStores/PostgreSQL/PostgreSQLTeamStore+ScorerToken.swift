import FetchedResultsPostgreSQL
import Foundation
import WorldCupModel

/// `serve`'s token digest on the shared store, so that every `serve` following it accepts one
/// token.
extension PostgreSQLTeamStore {
    public func scorerTokenDigest() throws -> [UInt8]? {
        try transaction("read serve's token") { try Self.digest($0) }
    }

    public func keepScorerTokenDigest(_ digest: [UInt8], replacing: Bool) throws -> [UInt8] {
        try transaction("make serve's token (as the database's owner or organiser)") { connection in
            let conflict = replacing ? "DO UPDATE SET digest = excluded.digest, created_at = now()" : "DO NOTHING"
            try connection.execute(
                "INSERT INTO serve_token (role, digest) VALUES ('scorer', $1) ON CONFLICT (role) \(conflict)",
                [Data(digest)])
            return try Self.digest(connection) ?? digest
        }
    }

    private static func digest(_ connection: PostgreSQLConnection) throws -> [UInt8]? {
        try connection.execute("SELECT digest FROM serve_token WHERE role = 'scorer'").records.first
            .map { [UInt8](try $0.decode(Data.self, forColumn: "digest")) }
    }
}
