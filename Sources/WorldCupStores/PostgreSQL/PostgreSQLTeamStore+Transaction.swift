import FetchedResultsPostgreSQL
import WorldCupModel

/// The SQL of the ways to score and correct (written once, in the extensions of
/// ``ScoreStore``) on the shared store, and the transactions they run in.
extension PostgreSQLTeamStore {
    /// Runs `body` in one transaction on the store's connection, and wakes the screens that
    /// follow the database. A score whose connection breaks is run again with its key until
    /// its outcome is known (``doubtTimeout``); a role without the grant is told what it may
    /// not do.
    public func write<T>(_ kind: TeamWrite, _ body: (Transaction) throws -> T) throws -> T {
        if kind.isScore {
            return try score(Self.action(kind)) { try body(Transaction(connection: $0)) }
        }
        let value = try transaction(Self.action(kind)) { try body(Transaction(connection: $0)) }
        announceCommit()
        return value
    }

    /// What a role without the grant may not do, in a refusal's words.
    private static func action(_ kind: TeamWrite) -> String {
        switch kind {
        case .addWins: "add wins"
        case .takeBackWins: "take back wins"
        case .addTeam: "add teams"
        case .setWins: "set wins"
        case .renameTeam: "rename teams"
        case .removeTeam: "delete teams"
        }
    }

    /// A transaction on the `team` and `score_receipt` tables. A team it reads is locked
    /// (`FOR UPDATE`) until it ends; names compare as SQLite's `NOCASE` does (ASCII letters
    /// folded, in the C collation).
    public struct Transaction: TeamTransaction {
        let connection: PostgreSQLConnection

        static let teamColumns = PostgreSQLSchema.teamColumns.joined(separator: ", ")

        /// An insert of a team's user-set fields, answering with the row.
        private static let insertSQL =
            "INSERT INTO team (\(PostgreSQLSchema.userColumns)) VALUES ("
            + Team.userFields.indices.map { "$\($0 + 1)" }.joined(separator: ", ") + ") RETURNING \(teamColumns)"

        public func team(id: Int64) throws -> Team? {
            try team(connection.execute("SELECT \(Self.teamColumns) FROM team WHERE id = $1 FOR UPDATE", [id]))
        }

        public func team(named name: String) throws -> Team? {
            try team(
                connection.execute(
                    "SELECT \(Self.teamColumns) FROM team"
                        + " WHERE \(PostgreSQLSchema.foldedName) = lower($1 COLLATE \"C\") FOR UPDATE", [name]))
        }

        public func teamNames() throws -> [String] {
            try connection.execute("SELECT team_name FROM team").rows.compactMap { $0[0] }
        }

        public func zoneSpelling(of zone: String) throws -> String? {
            try connection.execute(
                "SELECT qualifying_zone FROM team"
                    + " WHERE lower(qualifying_zone COLLATE \"C\") = lower($1 COLLATE \"C\") LIMIT 1",
                [zone]
            ).scalar
        }

        public func insert(_ team: Team) throws -> Team? {
            do {
                return try self.team(
                    connection.execute(Self.insertSQL, Team.userFields.map { $0.value(of: team).postgreSQLValue }))
            } catch PostgreSQLError.statementFailed(sqlState: .uniqueViolation, _) {
                return nil
            }
        }

        public func setWins(_ wins: Int, teamID: Int64) throws {
            try connection.execute("UPDATE team SET wins = $2 WHERE id = $1", [teamID, wins])
        }

        public func setName(_ name: String, teamID: Int64) throws -> Bool {
            do {
                try connection.execute("UPDATE team SET team_name = $2 WHERE id = $1", [teamID, name])
                return true
            } catch PostgreSQLError.statementFailed(sqlState: .uniqueViolation, _) {
                return false
            }
        }

        public func deleteTeam(id: Int64) throws {
            try connection.execute("DELETE FROM team WHERE id = $1", [id])
        }

        public func receipt(for key: ScoreKey) throws -> ScoreReceipt? {
            guard
                let row = try connection.execute(
                    "SELECT team_id, change, wins_after, undone_wins_after FROM score_receipt WHERE key = $1",
                    [key.description]
                ).rows.first
            else { return nil }
            return ScoreReceipt(
                key: key, teamID: Int64(row[0] ?? "") ?? 0, change: Int(row[1] ?? "") ?? 0,
                winsAfter: row[2].flatMap { Int($0) }, undoneWinsAfter: row[3].flatMap { Int($0) })
        }

        public func insert(_ receipt: ScoreReceipt) throws -> Bool {
            try connection.execute(
                "INSERT INTO score_receipt (key, team_id, change, wins_after) VALUES ($1, $2, $3, $4)"
                    + " ON CONFLICT (key) DO NOTHING",
                [receipt.key.description, receipt.teamID, receipt.change, receipt.winsAfter]
            ).affectedRows == 1
        }

        public func noteTakenBack(_ key: ScoreKey, winsAfter wins: Int) throws {
            try connection.execute(
                "UPDATE score_receipt SET undone_wins_after = $2 WHERE key = $1", [key.description, wins])
        }

        private func team(_ rows: PostgreSQLRows) throws -> Team? {
            guard let values = rows.rows.first else { return nil }
            return try Team(row: PostgreSQLRow(columns: rows.columns, values: values))
        }
    }
}
