import GRDB

/// The schema version each connection had when a look last checked it there.
///
/// GRDB keeps a cached statement's column names from its first step. SQLite prepares the
/// statement again after any schema change, but GRDB forgets its cached statements only for
/// its own connection's schema changes and, on a pool's readers, at the start of a read: a pool's
/// writer kept reading rows of a changed table under the old column names (or trapped on a
/// dropped column). A connection whose version moved since it was last seen (or that was never
/// seen) forgets its statements.
///
/// Connections are told apart by identity, not held: a weak reference would make every retain
/// of the connection take the slow path, and GRDB retains it all along. A connection made anew
/// at a freed one's address is harmless: its statements are all newer than the version noted.
struct ConnectionSchemaVersions {
    private var entries: [(connection: ObjectIdentifier, version: Int32)] = []
    /// More connections than a pool ever has at once; the oldest noted is forgotten first.
    private static let capacity = 16

    /// Notes `db`'s current schema `version`; true when it was not what was last noted there.
    mutating func noteMoved(_ version: Int32, on db: Database) -> Bool {
        let connection = ObjectIdentifier(db)
        if let index = entries.firstIndex(where: { $0.connection == connection }) {
            defer { entries[index].version = version }
            return entries[index].version != version
        }
        if entries.count == Self.capacity { entries.removeFirst() }
        entries.append((connection, version))
        return true
    }
}
