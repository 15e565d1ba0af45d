import FetchedResultsPostgreSQL
import Foundation
import WorldCupModel

/// Scores a client may send again (a browser's tap), and `serve`'s token digest, on the shared
/// store: the key goes into `score_receipt` with the answer, in the win's transaction.
extension PostgreSQLTeamStore {
    public func addWin(teamID: Int64, clientKey: ScoreKey) throws -> KeyedScore {
        try score("add wins") { connection in
            if let receipt = try Self.receipt(clientKey, connection) { return Self.answer(receipt, teamID: teamID) }
            guard let team = try Self.lockedTeam(teamID, connection) else { return .teamGone }
            guard team.wins < Int(Int64.max) else { throw WorldCupError.winsOverflow(team: team.teamName) }
            let recorded =
                try connection.execute(
                    "INSERT INTO score_receipt (key, team_id, change, wins_after) VALUES ($1, $2, 1, $3) "
                        + "ON CONFLICT (key) DO NOTHING",
                    [clientKey.description, teamID, team.wins + 1]
                ).affectedRows == 1
            // The same key, sent again while the first request held the team, committed first.
            guard recorded else {
                return try Self.receipt(clientKey, connection).map { Self.answer($0, teamID: teamID) }
                    ?? .keyUsedElsewhere
            }
            try connection.execute("UPDATE team SET wins = wins + 1 WHERE id = $1", [teamID])
            return .done(teamID: teamID, wins: team.wins + 1)
        }
    }

    public func takeBackWin(teamID: Int64, winKey: ScoreKey) throws -> KeyedScore {
        try score("take back wins") { connection in
            guard let team = try Self.lockedTeam(teamID, connection) else {
                return try Self.receipt(winKey, connection)?.undoneWinsAfter.map { .done(teamID: teamID, wins: $0) }
                    ?? .teamGone
            }
            guard let receipt = try Self.receipt(winKey, connection), receipt.teamID == teamID, receipt.change == 1,
                receipt.winsAfter != nil
            else { return .unknownWin }
            if let undone = receipt.undoneWinsAfter { return .done(teamID: teamID, wins: undone) }
            guard team.wins > 0 else { return .nothingToTakeBack }
            try connection.execute("UPDATE team SET wins = wins - 1 WHERE id = $1", [teamID])
            try connection.execute(
                "UPDATE score_receipt SET undone_wins_after = $2 WHERE key = $1",
                [winKey.description, team.wins - 1])
            return .done(teamID: teamID, wins: team.wins - 1)
        }
    }

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

    private static func lockedTeam(_ teamID: Int64, _ connection: PostgreSQLConnection) throws -> Team? {
        try team(connection.execute("SELECT \(teamColumns) FROM team WHERE id = $1 FOR UPDATE", [teamID]))
    }

    /// The first answer to a win's key, sent again.
    private static func answer(_ receipt: Receipt, teamID: Int64) -> KeyedScore {
        guard receipt.teamID == teamID, receipt.change == 1, let wins = receipt.winsAfter else {
            return .keyUsedElsewhere
        }
        return .done(teamID: teamID, wins: wins)
    }

    private struct Receipt {
        var teamID: Int64
        var change: Int
        var winsAfter: Int?
        var undoneWinsAfter: Int?
    }

    private static func receipt(_ key: ScoreKey, _ connection: PostgreSQLConnection) throws -> Receipt? {
        guard
            let row = try connection.execute(
                "SELECT team_id, change, wins_after, undone_wins_after FROM score_receipt WHERE key = $1",
                [key.description]
            ).rows.first
        else { return nil }
        return Receipt(
            teamID: Int64(row[0] ?? "") ?? 0, change: Int(row[1] ?? "") ?? 0, winsAfter: row[2].flatMap { Int($0) },
            undoneWinsAfter: row[3].flatMap { Int($0) })
    }
}
