import Foundation

/// The ways to score, written once for every store: each is one ``ScoreStore/write(_:_:)``
/// transaction, and each keeps its key in a ``ScoreReceipt`` there, so that a score done again
/// with the same key (its commit's reply lost, a browser's request sent again) counts once.
extension ScoreStore {
    /// Adds `count` wins to the team named `name` (trimmed, ignoring the case of ASCII
    /// letters); returns the team with its new total, or as it is when a score with `key` has
    /// counted already.
    @discardableResult
    public func addWins(to name: String, count: Int = 1, key: ScoreKey = ScoreKey()) throws -> Team {
        guard count >= 1 else { throw WorldCupError.invalidWinCount(count) }
        return try write(.addWins) { db in
            try Self.add(count, to: try Self.team(named: name, db), key: key, db)
        }
    }

    /// Adds one win to the team with this id; returns the team, or nil if it no longer exists.
    @discardableResult
    public func addWin(teamID: Int64, key: ScoreKey = ScoreKey()) throws -> Team? {
        try write(.addWins) { db in
            guard let team = try db.team(id: teamID) else { return nil }
            return try Self.add(1, to: team, key: key, db)
        }
    }

    /// Takes back one win this program gave, if the team still has one: never below zero,
    /// which would take back someone else's correction.
    public func takeBackWin(teamID: Int64, key: ScoreKey = ScoreKey()) throws -> UndoOutcome {
        try write(.takeBackWins) { db in
            guard var team = try db.team(id: teamID) else { return .teamGone }
            guard team.wins > 0 else { return .changedByOthers(team) }
            let receipt = ScoreReceipt(key: key, teamID: teamID, change: -1, winsAfter: team.wins - 1)
            guard try db.insert(receipt) else { return .undone(team) }
            team.wins -= 1
            try db.setWins(team.wins, teamID: teamID)
            return .undone(team)
        }
    }

    /// Adds one win for a client that sends the same request again when its reply is lost (a
    /// browser's tap): the same key again is answered as it was the first time.
    public func addWin(teamID: Int64, clientKey: ScoreKey) throws -> KeyedScore {
        try write(.addWins) { db in
            if let receipt = try db.receipt(for: clientKey) { return Self.answer(receipt, teamID: teamID) }
            guard var team = try db.team(id: teamID) else { return .teamGone }
            guard team.wins < Int.max else { throw WorldCupError.winsOverflow(team: team.teamName) }
            team.wins += 1
            guard try db.insert(ScoreReceipt(key: clientKey, teamID: teamID, change: 1, winsAfter: team.wins)) else {
                // The same key, sent again while the first request held the team, committed first.
                return try db.receipt(for: clientKey).map { Self.answer($0, teamID: teamID) } ?? .keyUsedElsewhere
            }
            try db.setWins(team.wins, teamID: teamID)
            return .done(teamID: teamID, wins: team.wins)
        }
    }

    /// Takes back the win made with `winKey` (``addWin(teamID:clientKey:)``), once: the same
    /// undo again is answered as the first time. Only the client that made the win knows its key.
    public func takeBackWin(teamID: Int64, winKey: ScoreKey) throws -> KeyedScore {
        try write(.takeBackWins) { db in
            // The team first: the same undo sent twice at once waits here for the first one,
            // and then reads its receipt with the first one's answer.
            let team = try db.team(id: teamID)
            guard let receipt = try db.receipt(for: winKey), receipt.isWin(of: teamID) else { return .unknownWin }
            if let undone = receipt.undoneWinsAfter { return .done(teamID: teamID, wins: undone) }
            guard var team else { return .teamGone }
            guard team.wins > 0 else { return .nothingToTakeBack }
            team.wins -= 1
            try db.setWins(team.wins, teamID: teamID)
            try db.noteTakenBack(winKey, winsAfter: team.wins)
            return .done(teamID: teamID, wins: team.wins)
        }
    }

    /// Adds wins to a team locked by the caller's transaction, once per key.
    private static func add(_ count: Int, to team: Team, key: ScoreKey, _ db: Transaction) throws -> Team {
        guard team.wins <= Int.max - count else { throw WorldCupError.winsOverflow(team: team.teamName) }
        var after = team
        after.wins += count
        guard try db.insert(ScoreReceipt(key: key, teamID: team.id!, change: count, winsAfter: after.wins)) else {
            return team
        }
        try db.setWins(after.wins, teamID: team.id!)
        return after
    }

    /// The first answer to a win's key, given again.
    private static func answer(_ receipt: ScoreReceipt, teamID: Int64) -> KeyedScore {
        guard receipt.isWin(of: teamID), let wins = receipt.winsAfter else { return .keyUsedElsewhere }
        return .done(teamID: teamID, wins: wins)
    }

    /// The team named `name` (trimmed, ignoring case), locked, or an error that suggests the
    /// closest names.
    static func team(named name: String, _ db: Transaction) throws -> Team {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let team = try db.team(named: name) else {
            throw WorldCupError.unknownTeam(
                name: name, suggestions: NameSuggestions.closest(to: name, in: try db.teamNames()))
        }
        return team
    }
}
