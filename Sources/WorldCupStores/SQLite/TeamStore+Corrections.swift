import GRDB
import WorldCupModel

/// The organiser's corrections on SQLite, each one transaction.
extension TeamStore {
    public func setWins(of name: String, to wins: Int) throws -> Correction {
        guard wins >= 0 else { throw WorldCupError.negativeWins(wins) }
        return try correcting(name) { db, team in
            try db.execute(sql: "UPDATE team SET wins = ? WHERE id = ?", arguments: [wins, team.id])
            var after = team
            after.wins = wins
            return after
        }
    }

    public func renameTeam(_ name: String, to newName: String) throws -> Correction {
        let newName = try NewTeamFields.checkedName(newName)
        return try correcting(name) { db, team in
            // The team itself may take another spelling of its own name.
            if let existing = try String.fetchOne(
                db, sql: "SELECT teamName FROM team WHERE teamName = ? AND id <> ?", arguments: [newName, team.id])
            {
                throw WorldCupError.nameTaken(team: team.teamName, name: newName, existing: existing)
            }
            try db.execute(sql: "UPDATE team SET teamName = ? WHERE id = ?", arguments: [newName, team.id])
            var after = team
            after.teamName = newName
            return after
        }
    }

    public func removeTeam(named name: String) throws -> Correction {
        try correcting(name) { db, team in
            try Team.deleteOne(db, key: team.id)
            return nil
        }
    }

    /// Runs `body` on the team named `name` (ignoring case) in one transaction.
    private func correcting(_ name: String, _ body: (Database, Team) throws -> Team?) throws -> Correction {
        try StoreErrors.translating(path: path) {
            try pool.write { db in
                let team = try Self.team(named: name, in: db)
                return Correction(before: team, after: try body(db, team))
            }
        }
    }
}
