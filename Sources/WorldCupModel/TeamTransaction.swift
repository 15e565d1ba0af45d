/// One write transaction on a store's teams, as the ways to score and correct are written over
/// it (``ScoreStore/write(_:_:)``): each store gives its SQL here, and the rules — what is
/// checked, in which order, what a key means — are written once, in the extensions of
/// ``ScoreStore``.
///
/// A team read by id or by name stays as read until the transaction ends: the store locks it
/// (PostgreSQL's `FOR UPDATE`; an SQLite write transaction holds the whole file). A write
/// changes only the column it names, so that a role granted that column alone may make it.
public protocol TeamTransaction {
    /// The team with this id, locked; nil if there is none.
    func team(id: Int64) throws -> Team?

    /// The team named `name` ignoring the case of ASCII letters, locked; nil if there is none.
    func team(named name: String) throws -> Team?

    /// Every team's name, for the suggestions when a name matches none.
    func teamNames() throws -> [String]

    /// The spelling a team in the store gives `zone`, ignoring the case of ASCII letters; nil
    /// if no team is in that zone.
    func zoneSpelling(of zone: String) throws -> String?

    /// Inserts a new team; returns it with its id, or nil when another writer has taken its
    /// name since it was checked.
    func insert(_ team: Team) throws -> Team?

    /// Sets the wins of the team with this id.
    func setWins(_ wins: Int, teamID: Int64) throws

    /// Gives the team with this id a new name; false when another writer has taken the name
    /// since it was checked.
    func setName(_ name: String, teamID: Int64) throws -> Bool

    /// Deletes the team with this id.
    func deleteTeam(id: Int64) throws

    /// The receipt kept with `key`, if a score with it has committed.
    func receipt(for key: ScoreKey) throws -> ScoreReceipt?

    /// Keeps a score's receipt; false when its key is kept already: a score with that key has
    /// committed (an earlier attempt whose reply was lost, or the same request sent twice at
    /// once), and this one must change nothing.
    func insert(_ receipt: ScoreReceipt) throws -> Bool

    /// Notes on the receipt of the win made with `key` that it was taken back, leaving `wins`.
    func noteTakenBack(_ key: ScoreKey, winsAfter wins: Int) throws
}

/// What a write transaction is for, as the store running it needs to know: whether it is a
/// score (and so may be done again with its key when the outcome of its commit is lost), and
/// the words of a refusal.
public enum TeamWrite: Sendable {
    case addWins, takeBackWins, addTeam, setWins, renameTeam, removeTeam

    /// Whether it is a score: a win or an undo, with its ``ScoreKey``.
    public var isScore: Bool { self == .addWins || self == .takeBackWins }
}

/// A score's key as a store keeps it, in the score's own transaction, with the answers it gave.
public struct ScoreReceipt: Equatable, Sendable {
    public var key: ScoreKey
    public var teamID: Int64
    /// The wins the score added; -1 for an undo.
    public var change: Int
    /// The team's wins right after the score; nil on a receipt kept before stores kept answers.
    public var winsAfter: Int?
    /// For a win: the team's wins right after it was taken back with its key.
    public var undoneWinsAfter: Int?

    public init(key: ScoreKey, teamID: Int64, change: Int, winsAfter: Int?, undoneWinsAfter: Int? = nil) {
        self.key = key
        self.teamID = teamID
        self.change = change
        self.winsAfter = winsAfter
        self.undoneWinsAfter = undoneWinsAfter
    }

    /// Whether it is the receipt of one win for this team, with its answer.
    func isWin(of teamID: Int64) -> Bool {
        self.teamID == teamID && change == 1 && winsAfter != nil
    }
}
