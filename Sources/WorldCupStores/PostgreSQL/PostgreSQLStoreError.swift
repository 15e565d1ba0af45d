import WorldCupModel

/// Why a PostgreSQL database cannot be opened as a store, each with what to do: what only a
/// PostgreSQL store can get wrong, so the model's ``WorldCupError`` need not know of libpq,
/// URIs or roles.
public enum PostgreSQLStoreError: Error, Equatable, CustomStringConvertible {
    /// libpq, loaded at the first connection, is not on this machine.
    case clientMissing(reason: String)
    case connectionURIUnreadable(reason: String)
    /// The URI holds a password, which the process list shows to anyone on the machine.
    case passwordInURI
    /// The database has no worldcup tables, and the role may not create them.
    case schemaNotInstalled(server: String, role: String)

    public var description: String { description(uriOption: nil) }

    /// The message, naming the connection URI by the option that gave it (`--db`), when one
    /// did: the command line's words for it, the store's for what happened.
    public func description(uriOption option: String?) -> String {
        let uri = "the \(option ?? "connection") URI"
        switch self {
        case let .clientMissing(reason):
            let given = option.map { "\($0) names" } ?? "the store is"
            return "\(given) a PostgreSQL database, but PostgreSQL's client library (libpq) could not be loaded: "
                + "\(reason). Install it (Debian: apt-get install libpq5) and try again; SQLite stores work without it."
        case let .connectionURIUnreadable(reason):
            return "\(uri) cannot be read: \(reason). Nothing was changed; write it as libpq reads it: "
                + "postgresql://USER@HOST:PORT/DATABASE?sslmode=verify-full (percent-encode other characters)."
        case .passwordInURI:
            return "\(uri) holds a password, which anyone on this machine can read in the process list. "
                + "Leave it out of the URI and put it in PGPASSWORD or ~/.pgpass (as psql reads them)."
        case let .schemaNotInstalled(server, role):
            return "\(server) has no worldcup tables yet, and the role \"\(role)\" may not create them. "
                + "Run any worldcup command once as the database's owner (README, Shared scoreboard)."
        }
    }
}

/// The failures every store may have, in a PostgreSQL server's terms: its roles, its address,
/// and where a password is kept.
extension StoreError {
    /// The role may not `action` ("add wins"): it lacks a grant.
    static func roleNotPermitted(server: String, role: String, action: String) -> StoreError {
        let advice = "ask the database's owner for the grant (README, Shared scoreboard: roles)."
        return StoreError(
            .notPermitted,
            description: "read-only: the PostgreSQL role \"\(role)\" may not \(action) on \(server). "
                + "Nothing was changed; \(advice)",
            brief: "read-only: the PostgreSQL role \"\(role)\" may not \(action); \(advice)")
    }

    static func serverUnreachable(server: String, reason: String) -> StoreError {
        StoreError(
            .unreachable,
            description: "cannot reach the PostgreSQL server \(server): \(reason). Nothing was changed; "
                + "check that the server runs, the connection URI, "
                + "and the password (PGPASSWORD or ~/.pgpass), then try again.")
    }

    static func scoreInDoubt(server: String, reason: String) -> StoreError {
        StoreError(
            .scoreInDoubt,
            description: "the connection to \(server) broke while the score was being committed, "
                + "and the server did not come back in time to tell whether it counted (\(reason)). "
                + "Once it is back, check with worldcup list before scoring again.")
    }
}
