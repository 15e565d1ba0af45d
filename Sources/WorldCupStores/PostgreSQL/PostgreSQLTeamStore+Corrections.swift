import FetchedResultsPostgreSQL
import WorldCupModel

/// The organiser's corrections on the shared store, each one transaction; a role without the
/// grant is refused by the server, and told so.
extension PostgreSQLTeamStore {
    public func setWins(of name: String, to wins: Int) throws -> Correction {
        guard wins >= 0 else { throw WorldCupError.negativeWins(wins) }
        return try correcting(name, "set wins") { connection, team in
            try Self.team(
                connection.execute(
                    "UPDATE team SET wins = $2 WHERE id = $1 RETURNING \(Self.teamColumns)", [team.id!, wins]))
        }
    }

    public func renameTeam(_ name: String, to newName: String) throws -> Correction {
        let newName = try NewTeamFields.checkedName(newName)
        return try correcting(name, "rename teams") { connection, team in
            // The team itself may take another spelling of its own name.
            if let existing = try connection.execute(
                "SELECT team_name FROM team WHERE \(PostgreSQLSchema.foldedName) = lower($1 COLLATE \"C\") AND id <> $2",
                [newName, team.id!]
            ).scalar {
                throw WorldCupError.nameTaken(team: team.teamName, name: newName, existing: existing)
            }
            do {
                return try Self.team(
                    connection.execute(
                        "UPDATE team SET team_name = $2 WHERE id = $1 RETURNING \(Self.teamColumns)",
                        [team.id!, newName]))
            } catch PostgreSQLError.statementFailed(sqlState: .uniqueViolation, _) {
                // Another machine took the name since the check.
                throw WorldCupError.nameTaken(team: team.teamName, name: newName, existing: newName)
            }
        }
    }

    public func removeTeam(named name: String) throws -> Correction {
        try correcting(name, "delete teams") { connection, team in
            try connection.execute("DELETE FROM team WHERE id = $1", [team.id!])
            return nil
        }
    }

    /// Runs `body` on the team named `name` (ignoring case), locked, in one transaction.
    private func correcting(
        _ name: String, _ action: String, _ body: (PostgreSQLConnection, Team) throws -> Team?
    ) throws -> Correction {
        let correction = try transaction(action) { connection in
            let team = try Self.lockedTeam(named: name, connection)
            return Correction(before: team, after: try body(connection, team))
        }
        announceCommit()
        return correction
    }
}
