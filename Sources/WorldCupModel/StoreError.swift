/// A store that could not do what was asked, for a reason the layers above every store act on:
/// the scoreboard keeps a score in doubt to send it again, `serve` answers with the status the
/// reason means.
///
/// The store that throws it words the message — a PostgreSQL role, libpq's own reason — so that
/// no layer above the stores needs to know which store it is, as an app that uses GRDB reads a
/// `DatabaseError`'s result code and shows its message.
public struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Why the store could not do it.
    public enum Reason: Equatable, Sendable {
        /// This user may read the store but not make this change; nothing was changed.
        case notPermitted
        /// The store's server cannot be reached; nothing was changed.
        case unreachable
        /// The connection broke while a score was being committed, and whether it counted is
        /// unknown: done again with the same ``ScoreKey``, it counts once.
        case scoreInDoubt
    }

    public var reason: Reason
    /// What happened and what to do, naming the store.
    public var description: String
    /// The same without the store's name, for a status line: whoever reads it chose the store.
    public var brief: String

    public init(_ reason: Reason, description: String, brief: String? = nil) {
        self.reason = reason
        self.description = description
        self.brief = brief ?? description
    }
}
