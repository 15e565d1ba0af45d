/// Added teams and the organiser's corrections, written once for every store, each one
/// ``ScoreStore/write(_:_:)`` transaction.
extension ScoreStore {
    /// Adds a new team with no wins and the tutorial's "wenderland-flag" image.
    ///
    /// A zone that matches an existing one ignoring case takes that zone's spelling, so
    /// "internets" joins "Internets" instead of starting a look-alike section.
    @discardableResult
    public func addTeam(name: String, zone: String) throws -> Team {
        let fields = try NewTeamFields(name: name, zone: zone)
        return try write(.addTeam) { db in
            if let existing = try db.team(named: fields.name) {
                throw WorldCupError.duplicateTeam(name: fields.name, existing: existing.teamName)
            }
            let team = Team(
                teamName: fields.name, qualifyingZone: try db.zoneSpelling(of: fields.zone) ?? fields.zone,
                imageName: Team.addedTeamImageName, wins: 0)
            guard let added = try db.insert(team) else {
                throw WorldCupError.duplicateTeam(name: fields.name, existing: fields.name)
            }
            return added
        }
    }

    /// Deletes a team this program added, only if it is still exactly as it was added: a win,
    /// a new name or zone given by anyone since keeps it (with their work) in the store.
    public func removeAddedTeam(_ added: Team) throws -> UndoOutcome {
        guard let teamID = added.id else { return .teamGone }
        return try write(.removeTeam) { db in
            guard let team = try db.team(id: teamID) else { return .teamGone }
            guard team == added else { return .changedByOthers(team) }
            try db.deleteTeam(id: teamID)
            return .undone(nil)
        }
    }

    /// Sets the wins of the team named `name` (ignoring the case of ASCII letters) to `wins`, 0
    /// or more: an organiser's correction.
    public func setWins(of name: String, to wins: Int) throws -> Correction {
        guard wins >= 0 else { throw WorldCupError.negativeWins(wins) }
        return try correcting(name, .setWins) { db, team in
            try db.setWins(wins, teamID: team.id!)
            var after = team
            after.wins = wins
            return after
        }
    }

    /// Renames the team named `name` (ignoring case); the new name must not be another team's,
    /// ignoring case, and is checked as an added team's is.
    public func renameTeam(_ name: String, to newName: String) throws -> Correction {
        let newName = try NewTeamFields.checkedName(newName)
        return try correcting(name, .renameTeam) { db, team in
            // The team itself may take another spelling of its own name.
            if let other = try db.team(named: newName), other.id != team.id {
                throw WorldCupError.nameTaken(team: team.teamName, name: newName, existing: other.teamName)
            }
            guard try db.setName(newName, teamID: team.id!) else {
                throw WorldCupError.nameTaken(team: team.teamName, name: newName, existing: newName)
            }
            var after = team
            after.teamName = newName
            return after
        }
    }

    /// Removes the team named `name` (ignoring case), with its wins.
    public func removeTeam(named name: String) throws -> Correction {
        try correcting(name, .removeTeam) { db, team in
            try db.deleteTeam(id: team.id!)
            return nil
        }
    }

    /// Runs `body` on the team named `name` (ignoring case), locked, in one transaction.
    private func correcting(
        _ name: String, _ kind: TeamWrite, _ body: (Transaction, Team) throws -> Team?
    ) throws -> Correction {
        try write(kind) { db in
            let team = try Self.team(named: name, db)
            return Correction(before: team, after: try body(db, team))
        }
    }
}
