import FetchedResultsSQLite
import Foundation
import GRDB
import WorldCupModel

/// Scores a client may send again (a browser's tap), and `serve`'s token digest.
///
/// A commit on SQLite is never in doubt for this process, but the reply to a browser can be lost
/// after it: the key goes into `scoreReceipt` in the win's own transaction, with the answer.
extension TeamStore {
    public func addWin(teamID: Int64, clientKey: ScoreKey) throws -> KeyedScore {
        try StoreErrors.translating(path: path) {
            try pool.write { db in
                if let receipt = try Self.receipt(clientKey, db) {
                    guard receipt.teamID == teamID, receipt.change == 1 else { return .keyUsedElsewhere }
                    return .done(teamID: teamID, wins: receipt.winsAfter)
                }
                guard let team = try Team.fetchOne(db, key: teamID) else { return .teamGone }
                guard team.wins < Int.max else { throw WorldCupError.winsOverflow(team: team.teamName) }
                try db.execute(sql: "UPDATE team SET wins = wins + 1 WHERE id = ?", arguments: [teamID])
                try db.execute(
                    sql: "INSERT INTO scoreReceipt (key, teamId, change, winsAfter) VALUES (?, ?, 1, ?)",
                    arguments: [clientKey.description, teamID, team.wins + 1])
                try ChangeHistory.prune(keeping: StoreSchema.historyKept, in: db)
                return .done(teamID: teamID, wins: team.wins + 1)
            }
        }
    }

    public func takeBackWin(teamID: Int64, winKey: ScoreKey) throws -> KeyedScore {
        try StoreErrors.translating(path: path) {
            try pool.write { db in
                guard let receipt = try Self.receipt(winKey, db), receipt.teamID == teamID, receipt.change == 1 else {
                    return .unknownWin
                }
                if let undone = receipt.undoneWinsAfter { return .done(teamID: teamID, wins: undone) }
                guard let team = try Team.fetchOne(db, key: teamID) else { return .teamGone }
                guard team.wins > 0 else { return .nothingToTakeBack }
                try db.execute(sql: "UPDATE team SET wins = wins - 1 WHERE id = ?", arguments: [teamID])
                try db.execute(
                    sql: "UPDATE scoreReceipt SET undoneWinsAfter = ? WHERE key = ?",
                    arguments: [team.wins - 1, winKey.description])
                return .done(teamID: teamID, wins: team.wins - 1)
            }
        }
    }

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

    private static func receipt(_ key: ScoreKey, _ db: Database) throws -> StoredReceipt? {
        try Row.fetchOne(
            db, sql: "SELECT teamId, change, winsAfter, undoneWinsAfter FROM scoreReceipt WHERE key = ?",
            arguments: [key.description]
        ).map { StoredReceipt(teamID: $0[0], change: $0[1], winsAfter: $0[2], undoneWinsAfter: $0[3]) }
    }
}

/// A score's key as the store holds it, with the answers it gave.
struct StoredReceipt {
    var teamID: Int64
    var change: Int
    var winsAfter: Int
    var undoneWinsAfter: Int?
}
