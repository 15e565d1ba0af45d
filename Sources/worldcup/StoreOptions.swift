import ArgumentParser
import Foundation
import TerminalUI
import WorldCupModel
import WorldCupStores

/// `--db`, `--seed` and `--lock-wait`, which every command accepts, and opening the store they name.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The store: an SQLite file, or a shared PostgreSQL database as a libpq URI "
                + "(postgresql://user@host/db?sslmode=verify-full). "
                + "PG* variables and ~/.pgpass work as in psql; never put a password in the URI (ps shows it): "
                + "use PGPASSWORD or ~/.pgpass.",
            valueName: "path|uri"))
    var db: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The seed imported when a store is first opened "
                + "(default: $WORLDCUP_SEED, then the copy beside the program).",
            valueName: "path"))
    var seed: String?

    // Unconditional, so that "--lock-wait -1" is read as a number (and refused as one).
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "How long to wait for another program that holds an SQLite store before giving up (default: 10).",
            valueName: "seconds"))
    var lockWait: Double?

    mutating func validate() throws {
        if db?.isEmpty == true {
            throw ValidationError("--db needs the path of a store file or a postgresql:// URI, not an empty text.")
        }
        if let lockWait, !(0...86_400).contains(lockWait) {
            throw ValidationError(
                "--lock-wait must be a number of seconds from 0 to 86400, not \(Self.asTyped(lockWait)).")
        }
    }

    /// Opens the store and imports the seed if it has never been seeded. A store file that does
    /// not exist yet is made only once its seed is found, so that a command refused for want of
    /// one leaves no file behind.
    ///
    /// - Parameters:
    ///   - onlyToRead: the command only reads (see `TeamStore.open`).
    ///   - doubtTimeout: how long a score whose commit reply was lost is sent again before it is
    ///     reported in doubt, by a store over the network (nil: the store's own default).
    func openSeededStore(onlyToRead: Bool = false, doubtTimeout: Duration? = nil) throws -> any ScoreStore {
        if case let .sqlite(path) = try address(), !FileManager.default.fileExists(atPath: path) {
            try SeedFile.checkReadable(path: try seedPath(), kind: .seed)
        }
        let store = try openStore(onlyToRead: onlyToRead, doubtTimeout: doubtTimeout)
        try store.seedIfNeeded(progress: ImportProgressReporter.reporter(label: "Importing the seed")) {
            .file(try seedPath())
        }
        return store
    }

    /// The seed file: `--seed`, then `$WORLDCUP_SEED`, then the copies beside the program.
    private func seedPath() throws -> String {
        try SeedLocator.locate(
            explicit: seed, environment: ProcessInfo.processInfo.environment,
            executablePath: SeedLocator.currentExecutablePath)
    }

    /// A number as it was most likely typed: 86401, not 86401.0.
    private static func asTyped(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    /// Where the store is.
    enum Address {
        case sqlite(path: String)
        case postgreSQL(conninfo: String)
    }

    /// The store `--db` names, or the default SQLite store.
    func address() throws -> Address {
        if let db, PostgreSQLTeamStore.isConnectionURI(db) { return .postgreSQL(conninfo: db) }
        return .sqlite(
            path: try db ?? StoreLocation.defaultDatabasePath(environment: ProcessInfo.processInfo.environment))
    }

    /// The store, created if needed, without the seed (the parameters as ``openSeededStore``'s).
    func openStore(onlyToRead: Bool = false, doubtTimeout: Duration? = nil) throws -> any ScoreStore {
        switch try address() {
        case let .postgreSQL(conninfo):
            return try PostgreSQLTeamStore.open(
                conninfo: conninfo, doubtTimeout: doubtTimeout ?? PostgreSQLTeamStore.defaultDoubtTimeout)
        case let .sqlite(path):
            return try TeamStore.open(
                path: path, createDirectory: db == nil,
                lockWait: lockWait.map { .milliseconds(Int($0 * 1000)) } ?? TeamStore.defaultLockWait,
                onlyToRead: onlyToRead)
        }
    }
}

/// Shows import progress on one redrawn stderr line (a bar, rate and time left), only on a
/// terminal and only for an import that lasts long enough to be worth watching.
enum ImportProgressReporter {
    /// An import done sooner prints nothing.
    static let quietSeconds = 0.3

    static func reporter(label: String) -> ImportProgress? {
        guard TerminalLibrary.stderrIsTerminal else { return nil }
        // A file's name may hold control characters; the line's own come after.
        let label = TerminalText.sanitized(label)
        let start = ContinuousClock.now
        return { status in
            // Once shown, always shown: the time only grows.
            let elapsed = (ContinuousClock.now - start) / .seconds(1)
            guard elapsed >= quietSeconds else { return }
            let line = ImportProgressLine.text(label: label, status: status, elapsedSeconds: elapsed)
            // One row, never wrapped (a carriage return goes back to the start of the last row
            // only), then erase what a longer earlier line left.
            let width = max(10, (TerminalLibrary.stderrColumns ?? 80) - 1)
            StandardError.write("\r" + TextWidth.truncate(line, toColumns: width) + "\u{1B}[K")
            if status.isDone { StandardError.write("\n") }
        }
    }
}

enum StandardError {
    static func write(_ text: String) {
        // Nowhere to say that stderr failed: the exit status still tells.
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }
}
