import FetchedResults
import Foundation

/// Where the teams and their wins are kept: an SQLite file on this machine (``TeamStore``) or a
/// PostgreSQL database that scoreboards on many machines share (``PostgreSQLTeamStore``).
///
/// The scoreboard, the commands and the seed logic use a store only through this protocol, so
/// they work the same on both. Every method is one transaction: a failing one leaves the store
/// as it was. Errors a user can cause come out as ``WorldCupError``; a store that cannot do what
/// was asked for a reason of its own (its server away, a role's grant missing), as ``StoreError``.
///
/// **Scores and their keys.** A win or an undo carries a key made once per key press or
/// command (``ScoreKey``). On a server, the reply to a `COMMIT` can be lost with the
/// connection, and then nobody knows whether the win counted; the key is stored with the win,
/// so doing the same score again with the same key counts it only if it did not count yet.
/// Every store keeps the key, in the score's own transaction: a score with a key counts once,
/// whichever store and whoever sends it again.
public protocol ScoreStore: AnyObject {
    /// The store as its user named it: a file path, or `user@host:port/database`.
    var displayName: String { get }

    /// Whether every write will be refused, as known when the store was opened: an SQLite file
    /// this user may only read. (A PostgreSQL role's rights show at its first write.)
    var isReadOnly: Bool { get }

    /// Imports the seed if this store has never been seeded (exactly once, however many
    /// programs open a new store at once); returns how many teams it imported. `loadSeed` is
    /// called only when the seed is needed.
    @discardableResult
    func seedIfNeeded(progress: ImportProgress?, loadSeed: () throws -> SeedSource) throws -> Int

    /// Imports teams from a file (or entries), all or nothing. A name already in the store is
    /// reported against its entry, unless `skippingExisting`, which leaves that entry out.
    @discardableResult
    func importTeams(
        from source: SeedSource, skippingExisting: Bool, progress: ImportProgress?
    ) throws -> (imported: Int, skipped: Int)

    /// A transaction on the teams, as the store gives it (``TeamTransaction``).
    associatedtype Transaction: TeamTransaction

    /// Runs `body` as one write transaction on the teams: what the ways to score and correct
    /// are written over (`addWin(teamID:key:)`, `setWins(of:to:)`, …), each store giving its
    /// SQL (``TeamTransaction``) and its mechanics. A store that can lose a commit's reply does
    /// a score (``TeamWrite/isScore``) again, with the same key, until its outcome is known,
    /// and throws ``StoreError/Reason/scoreInDoubt`` when it stays unknown.
    func write<T>(_ kind: TeamWrite, _ body: (Transaction) throws -> T) throws -> T

    /// The SHA-256 digest of `serve`'s scorer token, kept in the store so that every `serve`
    /// following it accepts the same token, across restarts; nil until one is made. The token
    /// itself is never stored.
    func scorerTokenDigest() throws -> [UInt8]?

    /// Keeps `digest` as the scorer token's digest: only if there is none yet, or replacing the
    /// one there is. Returns the digest in force afterwards (another `serve` may have made one
    /// first).
    func keepScorerTokenDigest(_ digest: [UInt8], replacing: Bool) throws -> [UInt8]

    /// The teams by zone in standings order (``Team/standingsOrder``).
    func standings() throws -> [ZoneStanding]

    /// A results controller over the standings that follows every writer's commits, for the
    /// scoreboard; `cacheDirectory` keeps its cache between launches (nil: none).
    func standingsController(cacheDirectory: String?) -> FetchedResultsController<Team>

    /// The standings' request narrowed to the teams whose name contains `text`, ASCII letters
    /// in either case (as search matches), for the scoreboard's filter; an empty text: every
    /// team. The controller changes to it live (`setFetchRequest`).
    func standingsRequest(nameContaining text: String) -> TableFetchRequest

    /// Housekeeping for an idle moment (SQLite's checkpoint, pruning old change history).
    func tidyWhileIdle()
}

extension ScoreStore {
    /// Not known to refuse writes: a store whose rights show only at a write says so then.
    public var isReadOnly: Bool { false }

    /// Every team in standings order.
    public func teamsInStandingsOrder() throws -> [Team] {
        try standings().flatMap(\.teams)
    }
}

/// Called as an import proceeds, a few hundred times at most, and once when it is done.
public typealias ImportProgress = @Sendable (ImportStatus) -> Void

/// How far an import has got.
public struct ImportStatus: Equatable, Sendable {
    /// Teams written so far.
    public var teams: Int
    /// The share of the whole import done, from 0 to 1 (1 once it is done). A streamed import
    /// does not know how many teams are to come, so this is not `teams` over a total.
    public var share: Double

    public init(teams: Int, share: Double) {
        self.teams = teams
        self.share = share
    }

    /// Whether the import has finished.
    public var isDone: Bool { share >= 1 }
}

/// The identity of one score (a key press, a `worldcup win`): doing a score again with the same
/// key never counts it twice (see ``ScoreStore``).
public struct ScoreKey: Hashable, Sendable, CustomStringConvertible {
    public let uuid: UUID

    /// A new key, for a new key press or command.
    public init() { uuid = UUID() }

    /// The key a client made (a tap's `Idempotency-Key`).
    public init(uuid: UUID) { self.uuid = uuid }

    public var description: String { uuid.uuidString.lowercased() }
}

/// What a keyed score (``ScoreStore/addWin(teamID:clientKey:)``) did, the same for every
/// request with its key.
public enum KeyedScore: Equatable, Sendable {
    /// Done, by this request or an earlier one with the same key: the team's wins right after.
    case done(teamID: Int64, wins: Int)
    /// No team has this id; nothing was changed.
    case teamGone
    /// The key was used before for another team or another kind of score; nothing was changed.
    case keyUsedElsewhere
    /// An undo of a win this store never counted with that key (for that team).
    case unknownWin
    /// An undo of a win that someone else has taken back since (the team has no win left).
    case nothingToTakeBack
}

/// What an undo found when it looked at the store.
public enum UndoOutcome: Equatable, Sendable {
    /// Taken back; the team as it is now (nil once deleted).
    case undone(Team?)
    /// The team is no longer in the store; nothing was changed.
    case teamGone
    /// Someone else changed the team since, so taking it back would destroy their work;
    /// nothing was changed. The team as it is now.
    case changedByOthers(Team)
}
