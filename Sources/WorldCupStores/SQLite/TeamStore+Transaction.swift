import FetchedResultsSQLite
import GRDB
import WorldCupModel

/// The SQL of the ways to score and correct (written once, in the extensions of
/// ``ScoreStore``) on SQLite, and the transaction they run in.
extension TeamStore {
    /// Runs `body` in one write transaction. A score also keeps the change history to its
    /// newest rows, so that a script's scores (`worldcup win`) leave no growing history.
    public func write<T>(_ kind: TeamWrite, _ body: (Transaction) throws -> T) throws -> T {
        try StoreErrors.translating(path: path) {
            try pool.write { db in
                let value = try body(Transaction(db: db))
                if kind.isScore { try ChangeHistory.prune(keeping: StoreSchema.historyKept, in: db) }
                return value
            }
        }
    }

    /// A write transaction on the `team` and `scoreReceipt` tables. It holds the whole file
    /// until it ends, so every team it reads stays as read.
    public struct Transaction: TeamTransaction {
        let db: Database

        public func team(id: Int64) throws -> Team? {
            try Team.fetchOne(db, key: id)
        }

        public func team(named name: String) throws -> Team? {
            // The column's collation is NOCASE.
            try Team.filter(sql: "teamName = ?", arguments: [name]).fetchOne(db)
        }

        public func teamNames() throws -> [String] {
            try String.fetchAll(db, sql: "SELECT teamName FROM team")
        }

        public func zoneSpelling(of zone: String) throws -> String? {
            try String.fetchOne(
                db, sql: "SELECT qualifyingZone FROM team WHERE qualifyingZone = ? LIMIT 1", arguments: [zone])
        }

        public func insert(_ team: Team) throws -> Team? {
            try team.insert(db)
            var inserted = team
            inserted.id = db.lastInsertedRowID
            return inserted
        }

        public func setWins(_ wins: Int, teamID: Int64) throws {
            try db.execute(sql: "UPDATE team SET wins = ? WHERE id = ?", arguments: [wins, teamID])
        }

        /// Always true: no other writer can take a name while this transaction holds the file.
        public func setName(_ name: String, teamID: Int64) throws -> Bool {
            try db.execute(sql: "UPDATE team SET teamName = ? WHERE id = ?", arguments: [name, teamID])
            return true
        }

        public func deleteTeam(id: Int64) throws {
            try Team.deleteOne(db, key: id)
        }

        public func receipt(for key: ScoreKey) throws -> ScoreReceipt? {
            try Row.fetchOne(
                db, sql: "SELECT teamId, change, winsAfter, undoneWinsAfter FROM scoreReceipt WHERE key = ?",
                arguments: [key.description]
            ).map { ScoreReceipt(key: key, teamID: $0[0], change: $0[1], winsAfter: $0[2], undoneWinsAfter: $0[3]) }
        }

        public func insert(_ receipt: ScoreReceipt) throws -> Bool {
            try db.execute(
                sql: "INSERT INTO scoreReceipt (key, teamId, change, winsAfter) VALUES (?, ?, ?, ?)"
                    + " ON CONFLICT (key) DO NOTHING",
                arguments: [receipt.key.description, receipt.teamID, receipt.change, receipt.winsAfter])
            return db.changesCount == 1
        }

        public func noteTakenBack(_ key: ScoreKey, winsAfter wins: Int) throws {
            try db.execute(
                sql: "UPDATE scoreReceipt SET undoneWinsAfter = ? WHERE key = ?", arguments: [wins, key.description])
        }
    }
}
