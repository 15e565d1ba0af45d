import WorldCupModel
import WorldCupStores

/// An error as the command line says it: where what to do is to give an option (`--db`,
/// `--seed`, `--force`…), the message names it. The model and the stores know no options;
/// their own words serve the scoreboard and `serve`, and every error this does not reword.
enum CommandLineAdvice {
    /// The message's lines (several only for the places a seed was looked for).
    static func lines(for error: WorldCupError) -> [String] {
        switch error {
        case let .seedNotFound(tried):
            return ["this store has never been seeded and no seed file was found. Looked in:"]
                + (["--seed PATH (not given)"] + tried).map { "  - \($0)" }
                + ["Pass --seed PATH or set WORLDCUP_SEED to the tutorial's seed.json."]
        default:
            return [message(for: error)]
        }
    }

    /// The one-line message for `error`.
    static func message(for error: WorldCupError) -> String {
        switch error {
        case let .noHomeDirectory(variable):
            "cannot tell where to keep data: neither $\(variable) nor $HOME is set. Set one, or pass --db PATH."
        case let .fileIsAFolder(path, kind):
            if let option = option(naming: kind) {
                "the \(kind) \(path) is a folder; \(option) needs \(kind.wanted(in: path))."
            } else {
                error.description
            }
        case let .fileExists(path, kind):
            "the \(kind) \(path) already exists. Nothing was written; pass --force to replace it, "
                + "or choose another \(option(naming: kind) ?? "file")."
        case let .seedInvalid(problem) where problem.remedy == .skipTeamsInStore:
            problem.description(remedy: "pass --skip-existing to import only the teams not in the store")
        case let .invalidWinCount(count):
            "--count must be a whole number of at least 1, not \(count)."
        case let .storeDirectoryMissing(path):
            "the folder for the store \(path) does not exist. Create it, or choose another --db."
        case let .storeIsAFolder(path):
            "the store \(path) is a folder; --db needs the path of a store file (made if missing), "
                + "such as \(FileKind.inside(path, "worldcup.sqlite")). Nothing was changed."
        case let .storeNotADatabase(path):
            "\(path) is not a worldcup store (not an SQLite database). Nothing was changed; "
                + "choose another --db or move the file away."
        case let .storeOfAnotherProgram(path):
            "\(path) is not a worldcup store: it is an SQLite database that holds another program's tables. "
                + "Nothing was changed; choose another --db (a path with no file yet makes a new store)."
        case let .storeFolderUnreachable(path, folder):
            "the store \(path) cannot be reached: its folder \(folder), or one above it, may not be entered "
                + "by this user. Nothing was changed; check the folders' permissions, or choose another --db."
        case let .storeFolderNotAFolder(path):
            "the store \(path) cannot be made: a part of its path that should be a folder is a file. "
                + "Nothing was changed; choose another --db."
        case let .storeFolderUnwritable(path, folder):
            "the store \(path) does not exist, and its folder \(folder) may not be written to make it. "
                + "Nothing was changed; check the folder's permissions, or choose another --db."
        default:
            error.description
        }
    }

    /// The message for a PostgreSQL database `--db` names but that cannot be opened.
    static func message(for error: PostgreSQLStoreError) -> String {
        switch error {
        case let .clientMissing(reason):
            "--db names a PostgreSQL database, but PostgreSQL's client library (libpq) could not be loaded: "
                + "\(reason). Install it (Debian: apt-get install libpq5) and try again; "
                + "SQLite stores work without it."
        case let .connectionURIUnreadable(reason):
            "the --db URI cannot be read: \(reason). Nothing was changed; write it as libpq reads it: "
                + "postgresql://USER@HOST:PORT/DATABASE?sslmode=verify-full (percent-encode other characters)."
        case .passwordInURI:
            "the --db URI holds a password, which anyone on this machine can read in the process list. "
                + "Leave it out of the URI and put it in PGPASSWORD or ~/.pgpass (as psql reads them)."
        case .schemaNotInstalled:
            error.description
        }
    }

    /// The option that names a file of this kind; nil for a command's argument (import, export).
    private static func option(naming kind: FileKind) -> String? {
        switch kind {
        case .seed: "--seed"
        case .output: "--output"
        case .auditLog: "--log"
        case .stats: "--stats"
        case .importFile, .export: nil
        }
    }
}
