import FetchedResultsSQLite
import Foundation
import GRDB
import GRDBSQLite
import WorldCupModel

extension TeamStore {
    /// An import switches to a bulk load once it has written this many rows and at least as
    /// many as the store held: see ``importRows(from:skippingExisting:db:progress:)``.
    static let bulkImportThreshold = 50_000

    /// The share of a streamed import's time spent writing rows; building the two indexes
    /// takes the rest. Only the progress bar uses it, so an estimate is enough.
    private static let rowsShareOfImport = 0.55

    /// The file needs the thorough reader, or the store's unique index found a name twice:
    /// the streamed attempt is rolled back and the careful one says exactly what is wrong.
    private struct NeedsCarefulImport: Error {}

    /// Writes the source's teams inside the caller's transaction; returns how many entries it
    /// had and how many were inserted.
    ///
    /// A file is streamed from the parser into the insert statement, never held whole. Once an
    /// import has written ``bulkImportThreshold`` rows and as many as the store held, it becomes
    /// a bulk load: it stops recording the change history (open scoreboards refetch once
    /// instead of reading one history row per team), drops the unique name index and the
    /// standings index, appends the rest of the rows, and builds both indexes again at the end,
    /// which SQLite does by sorting, several times faster than keeping them ordered row by row.
    /// A file the fast reader gives up on, a name found twice (in the file or in the store), or
    /// `skippingExisting` takes the careful way: every entry read and checked first, then written
    /// row by row with the indexes in place, which names the entry at fault.
    static func importRows(
        from source: SeedSource, skippingExisting: Bool, db: Database, progress: ImportProgress?
    ) throws -> (read: Int, inserted: Int) {
        if !skippingExisting,
            let count = try withPragmas(
                streamedImportPragmas, db: db, { try streamedImport(from: source, db: db, progress: progress) })
        {
            return (count, count)
        }
        let entries = try source.entries()
        let inserted = try withPragmas(["cache_size": carefulImportCacheSize], db: db) {
            try carefulImport(
                entries, file: source.file, skippingExisting: skippingExisting, db: db, progress: progress)
        }
        return (entries.count, inserted)
    }

    /// Building an index sorts in memory up to the page cache's size; past it, sorter threads
    /// sort pieces side by side in temporary files and merge them: a big import's indexes are
    /// built sooner, in less memory, than by one thread with a cache big enough to sort them.
    private static var streamedImportPragmas: [String: Int] {
        ["cache_size": -8192, "threads": min(4, ProcessInfo.processInfo.activeProcessorCount)]
    }

    /// Inserting into indexes in random order thrashes the default 2 MB cache.
    private static let carefulImportCacheSize = -65536

    /// Runs `body` with the connection's `pragmas` set, then puts them back.
    private static func withPragmas<T>(_ pragmas: [String: Int], db: Database, _ body: () throws -> T) throws -> T {
        var before: [String: Int] = [:]
        for (name, value) in pragmas {
            before[name] = try Int.fetchOne(db, sql: "PRAGMA \(name)")!
            try db.execute(sql: "PRAGMA \(name) = \(value)")
        }
        defer { for (name, value) in before { try? db.execute(sql: "PRAGMA \(name) = \(value)") } }
        return try body()
    }

    /// The streamed import in a savepoint; nil (and nothing written) when it must be careful.
    private static func streamedImport(from source: SeedSource, db: Database, progress: ImportProgress?) throws -> Int?
    {
        var count: Int?
        do {
            try db.inSavepoint {
                count = try streamRows(from: source, db: db, progress: progress)
                return count == nil ? .rollback : .commit
            }
        } catch is NeedsCarefulImport {
            return nil
        }
        return count
    }

    private static func streamRows(from source: SeedSource, db: Database, progress: ImportProgress?) throws -> Int? {
        let writer = try RowWriter(db: db, skippingExisting: false)
        let bulkFrom = max(bulkImportThreshold, try Int.fetchOne(db, sql: "SELECT count(*) FROM team") ?? 0)
        var isBulk = false
        let count = try source.stream { fields, share in
            if !isBulk && writer.inserted >= bulkFrom {
                try ChangeHistory.stopRecording(on: Team.databaseTableName, in: db)
                try db.execute(sql: "DROP INDEX team_name; DROP INDEX team_standings")
                isBulk = true
            }
            guard try writer.insert(fields) else { throw NeedsCarefulImport() }
            if let progress, writer.inserted % 4096 == 0 {
                progress(ImportStatus(teams: writer.inserted, share: share * rowsShareOfImport))
            }
        }
        guard let count else { return nil }
        if isBulk {
            do {
                try db.execute(sql: StoreSchema.nameIndexSQL)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw NeedsCarefulImport()
            }
            progress?(ImportStatus(teams: count, share: (1 + rowsShareOfImport) / 2))
            try db.execute(sql: StoreSchema.standingsIndexSQL)
            try ChangeHistory.resumeRecording(on: Team.databaseTableName, in: db)
        } else {
            try ChangeHistory.prune(keeping: StoreSchema.historyKept, in: db)
        }
        progress?(ImportStatus(teams: count, share: 1))
        return count
    }

    /// Writes checked entries row by row with every index in place; a name already in the
    /// store is reported against its entry (or left out, `skippingExisting`).
    private static func carefulImport(
        _ entries: [SeedEntry], file: String, skippingExisting: Bool, db: Database, progress: ImportProgress?
    ) throws -> Int {
        let writer = try RowWriter(db: db, skippingExisting: skippingExisting)
        for (index, entry) in entries.enumerated() {
            guard try SeedFields.of(entry, writer.insert) else {
                throw WorldCupError.seedInvalid(
                    SeedProblem(
                        file: file, entryIndex: index, field: "teamName",
                        message: "a team named \"\(entry.teamName)\" is already in the store",
                        remedy: .skipTeamsInStore))
            }
            if let progress, index % 4096 == 0 {
                progress(ImportStatus(teams: writer.inserted, share: Double(index) / Double(entries.count)))
            }
        }
        try ChangeHistory.prune(keeping: StoreSchema.historyKept, in: db)
        progress?(ImportStatus(teams: writer.inserted, share: 1))
        return writer.inserted
    }
}

/// Inserts teams with one prepared statement, binding each field's bytes straight from the
/// reader (SQLite copies them); a zone matching one already written (or in the store) ignoring
/// case takes that zone's spelling, so a file cannot start look-alike sections.
private final class RowWriter {
    private let db: Database
    private let statement: Statement
    /// The spelling each zone, as written in the file, is stored with.
    private var zoneSpellingByBytes: [[UInt8]: [UInt8]] = [:]
    /// The spelling each zone is stored with, by its ASCII-folded name.
    private var zoneSpelling: [String: String] = [:]
    /// The place of the zone among the insert's values (``Team/userFields``).
    private let zoneIndex = Team.userFields.firstIndex { $0.name == Team.sectionAttribute }!
    /// Rows inserted so far (an entry skipped as existing is not one).
    private(set) var inserted = 0

    init(db: Database, skippingExisting: Bool) throws {
        self.db = db
        let columns = Team.userFields.map(\.name)
        statement = try db.makeStatement(
            sql: "INSERT INTO team (\(columns.joined(separator: ", "))) VALUES ("
                + columns.map { _ in "?" }.joined(separator: ", ") + ")"
                + (skippingExisting ? " ON CONFLICT (teamName) DO NOTHING" : ""))
        for zone in try String.fetchAll(db, sql: "SELECT DISTINCT qualifyingZone FROM team") {
            zoneSpelling[NoCase.key(zone)] = zone
        }
    }

    /// Inserts the entry; false when its name is already taken (ignoring ASCII case).
    func insert(_ fields: SeedFields) throws -> Bool {
        let handle = statement.sqliteStatement
        // SQLITE_TRANSIENT: SQLite copies the bytes, which live only during this call.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_reset(handle)
        for (index, value) in fields.values.enumerated() {
            let parameter = Int32(index + 1)
            switch value {
            case let .text(text) where index == zoneIndex:
                spelling(ofZone: text).withUnsafeBytes {
                    _ = sqlite3_bind_text(handle, parameter, $0.baseAddress, Int32($0.count), transient)
                }
            case let .text(text):
                // A null pointer would bind NULL: an empty text is text.
                sqlite3_bind_text(
                    handle, parameter, text.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(text.count),
                    transient)
            case let .number(number): sqlite3_bind_int64(handle, parameter, number)
            case .null, .absent: sqlite3_bind_null(handle, parameter)
            }
        }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let extended = ResultCode(rawValue: sqlite3_extended_errcode(db.sqliteConnection))
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            sqlite3_reset(handle)
            if extended == .SQLITE_CONSTRAINT_UNIQUE { return false }
            throw DatabaseError(resultCode: extended, message: message, sql: statement.sql)
        }
        inserted += Int(sqlite3_changes(db.sqliteConnection))
        return true
    }

    private func spelling(ofZone bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let written = Array(bytes)
        if let known = zoneSpellingByBytes[written] { return known }
        let zone = SeedFields.text(bytes)
        let key = NoCase.key(zone)
        let spelling = zoneSpelling[key] ?? zone
        zoneSpelling[key] = spelling
        zoneSpellingByBytes[written] = Array(spelling.utf8)
        return zoneSpellingByBytes[written]!
    }
}
