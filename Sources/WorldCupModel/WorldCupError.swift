/// Every error a user can cause in the model's terms — teams, fields, files, a store's file —
/// with a message that says what happened and what to do.
///
/// The messages name no option or command of the command line: what to do is a ``Remedy``,
/// which the command line words with its options ("choose another --db") through
/// ``description(wording:)``. Nothing is written to the store when one of
/// these is thrown (every write is a single transaction). A store's server, its roles and its
/// connection fail as ``StoreError``, worded by the store.
public enum WorldCupError: Error, Equatable, CustomStringConvertible {
    case noHomeDirectory(variable: String)
    case seedNotFound(tried: [String])
    case fileUnreadable(path: String, kind: FileKind, reason: String)
    case fileUnwritable(path: String, kind: FileKind, reason: String)
    case fileIsAFolder(path: String, kind: FileKind)
    case fileExists(path: String, kind: FileKind)
    case fileIsTheStore(path: String, kind: FileKind, store: String)
    /// Standard output could not be written; `workDone`: after the command's work was done.
    case standardOutputUnwritable(reason: String, workDone: Bool)
    case seedInvalid(SeedProblem)
    case unknownTeam(name: String, suggestions: [String])
    case duplicateTeam(name: String, existing: String)
    case emptyField(field: String)
    case fieldTooLong(field: String, length: Int, limit: Int)
    case nulInField(field: String)
    case invalidWinCount(Int)
    case negativeWins(Int)
    /// A rename of `team` to `name`, which `existing` has already (ignoring case).
    case nameTaken(team: String, name: String, existing: String)
    case notConfirmed(team: String)
    /// A change was committed, but its line could not be added to the audit log.
    case auditLogUnwritten(path: String)
    case winsOverflow(team: String)
    case storeDirectoryMissing(path: String)
    case storeIsAFolder(path: String)
    /// The file is not a store; `database` says what a store is ("an SQLite database").
    case storeNotADatabase(path: String, database: String)
    /// The file is `database` ("an SQLite database"), but another program's.
    case storeOfAnotherProgram(path: String, database: String)
    case storeReadOnly(path: String)
    case storeUnreadable(path: String)
    case storeFolderUnreachable(path: String, folder: String)
    case storeFolderUnwritable(path: String, folder: String)
    case storeFolderNotAFolder(path: String)
    case storeBusy(path: String)
    case storeFromNewerVersion(path: String)
    case storeCorrupt(path: String)
    case storeFailed(path: String, reason: String)

    /// The message as lines: one, but for the list of places a seed was looked for. The lines
    /// quote the user's text as it is, control characters and all: whoever shows them on a
    /// terminal makes those visible (`TerminalText`) line by line, so that even a newline in a
    /// name cannot pass for the start of another line.
    public var lines: [String] { lines(wording: \.description) }

    /// ``lines``, with each remedy in the words `wording` gives it.
    public func lines(wording: (Remedy) -> String) -> [String] {
        guard case let .seedNotFound(tried) = self else { return [description(wording: wording)] }
        return ["this store has never been seeded and no seed file was found. Looked in:"]
            + tried.map { "  - \($0)" }
            + [wording(.giveASeed)]
    }

    public var description: String { description(wording: \.description) }

    /// The message, with each remedy in the words `wording` gives it: what happened is worded
    /// here once, whoever shows it.
    public func description(wording: (Remedy) -> String) -> String {
        switch self {
        case let .noHomeDirectory(variable):
            return "cannot tell where to keep data: neither $\(variable) nor $HOME is set. "
                + wording(.setHomeOrChooseAStore)
        case .seedNotFound:
            return lines(wording: wording).joined(separator: "\n")
        case let .fileUnreadable(path, kind, reason):
            return "cannot read the \(kind) \(path): \(reason)."
        case let .fileUnwritable(path, kind, reason):
            return "cannot write the \(kind) \(path): \(reason). Nothing was written; choose another path."
        case let .fileIsAFolder(path, kind):
            return "the \(kind) \(path) is a folder; \(wording(.giveAFile(kind, insteadOf: path)))."
        case let .fileIsTheStore(path, kind, store):
            return "the \(kind) \(path) is the store \(store), or a file the store keeps beside it: "
                + "writing it would lose the teams it holds. Nothing was written; choose another path."
        case let .standardOutputUnwritable(reason, workDone):
            return workDone
                ? "the command's work was done, but its message could not be written to standard output: \(reason)."
                : "cannot write to standard output: \(reason). Check where it goes (a full disk, a closed file) "
                    + "and try again."
        case let .fileExists(path, kind):
            return "the \(kind) \(path) already exists. Nothing was written; "
                + "\(wording(.replaceOrChooseAnotherFile(kind)))."
        case let .seedInvalid(problem):
            return problem.description(remedy: wording(problem.remedy))
        case let .unknownTeam(name, suggestions):
            let hint =
                suggestions.isEmpty
                ? wording(.listTheTeams)
                : "Did you mean " + suggestions.map { "\"\($0)\"" }.joined(separator: ", ") + "?"
            return "no team named \"\(name)\". \(hint)"
        case let .duplicateTeam(name, existing):
            return "a team named \"\(existing)\" already exists, so \"\(name)\" cannot be added "
                + "(names are case-insensitive). Choose another name."
        case let .emptyField(field):
            return "the \(field) must not be empty."
        case let .fieldTooLong(field, length, limit):
            return "the \(field) is too long (\(length) characters; at most \(limit))."
        case let .nulInField(field):
            return "the \(field) must not contain a NUL character, which the store cannot keep. Remove it."
        case let .invalidWinCount(count):
            return "the wins to add must be a whole number of at least 1, not \(count)."
        case let .negativeWins(wins):
            return "the wins must be a whole number of 0 or more, not \(wins)."
        case let .nameTaken(team, name, existing):
            return "a team named \"\(existing)\" already exists, so \"\(team)\" cannot be renamed \"\(name)\" "
                + "(names are case-insensitive). Choose another name."
        case let .notConfirmed(team):
            return "\"\(team)\" was not removed: the answer was not yes. Nothing was changed."
        case let .auditLogUnwritten(path):
            return "the change was made, but the log file \(path) could not take its line. "
                + "Check the file (a full disk?) and add the change to it by hand."
        case let .winsOverflow(team):
            return "\(team)'s wins cannot grow that far: the total would exceed \(Int64.max). Nothing was changed."
        case let .storeDirectoryMissing(path):
            return "the folder for the store \(path) does not exist. Create it, or \(wording(.chooseAnotherStore))."
        case let .storeIsAFolder(path):
            return "the store \(path) is a folder; \(wording(.giveAStoreFile(insteadOf: path))). Nothing was changed."
        case let .storeNotADatabase(path, database):
            return "\(path) is not a worldcup store (not \(database)). Nothing was changed; "
                + "\(wording(.chooseAnotherStore)) or move the file away."
        case let .storeOfAnotherProgram(path, database):
            return "\(path) is not a worldcup store: it is \(database) that holds another program's tables. "
                + "Nothing was changed; \(wording(.chooseAnotherStore)) (a path with no file yet makes a new store)."
        case let .storeReadOnly(path):
            return "the store \(path) is read-only (the file or its folder cannot be written). Nothing was changed; "
                + "check its permissions."
        case let .storeUnreadable(path):
            return "the store \(path) cannot be read by this user (permission denied). Nothing was changed; "
                + "check its permissions, or run as its owner."
        case let .storeFolderUnreachable(path, folder):
            return "the store \(path) cannot be reached: its folder \(folder), or one above it, may not be entered "
                + "by this user. Nothing was changed; check the folders' permissions, or \(wording(.chooseAnotherStore))."
        case let .storeFolderNotAFolder(path):
            return "the store \(path) cannot be made: a part of its path that should be a folder is a file. "
                + "Nothing was changed; \(wording(.chooseAnotherStore))."
        case let .storeFolderUnwritable(path, folder):
            return "the store \(path) does not exist, and its folder \(folder) may not be written to make it. "
                + "Nothing was changed; check the folder's permissions, or \(wording(.chooseAnotherStore))."
        case let .storeBusy(path):
            return "the store \(path) stayed locked by another program for too long. Nothing was changed; try again."
        case let .storeFromNewerVersion(path):
            return "the store \(path) was written by a newer worldcup. Nothing was changed; upgrade worldcup to use it."
        case let .storeCorrupt(path):
            return "the store \(path) is damaged (its database reports corruption). Nothing was changed; "
                + "restore it from a backup or move it away to start afresh."
        case let .storeFailed(path, reason):
            return "the store \(path) could not be used: \(reason)."
        }
    }
}

/// What a file named on the command line is for, as messages name it.
public enum FileKind: Equatable, Sendable, CustomStringConvertible {
    case seed, importFile, export, output, auditLog, stats

    public var description: String {
        switch self {
        case .seed: "seed file"
        case .importFile: "import file"
        case .export: "export file"
        case .output: "output file"
        case .auditLog: "log file"
        case .stats: "stats file"
        }
    }

    /// What to give instead of the folder `path`: the path of a file, with an example.
    public func wanted(in path: String) -> String {
        switch self {
        case .seed: "the path of a seed file, such as \(Self.inside(path, "seed.json"))"
        case .importFile: "the path of a file, such as an exported backup"
        case .export: "the path of a file to write, such as \(Self.inside(path, "backup.json"))"
        case .output: "the path of a file to write, such as \(Self.inside(path, "teams.json"))"
        case .auditLog: "the path of a file to add lines to, such as \(Self.inside(path, "scores.log"))"
        case .stats: "the path of a file to write, such as \(Self.inside(path, "stats.txt"))"
        }
    }

    /// `name` in `folder`.
    public static func inside(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}

/// A problem in a seed or import file, located by file, entry and field.
public struct SeedProblem: Equatable, Sendable, CustomStringConvertible {
    public var file: String
    /// The zero-based position of the entry in the file's array, when the problem is in one.
    public var entryIndex: Int?
    public var field: String?
    public var message: String
    /// What to do about it: ``Remedy/fixTheFile``, or ``Remedy/skipTeamsInStore`` when the
    /// entry's team is in the store already (the import may leave such entries out).
    public var remedy = Remedy.fixTheFile

    package init(
        file: String, entryIndex: Int? = nil, field: String? = nil, message: String, remedy: Remedy = .fixTheFile
    ) {
        self.file = file
        self.entryIndex = entryIndex
        self.field = field
        self.message = message
        self.remedy = remedy
    }

    public var description: String { description(remedy: remedy.description) }

    /// The problem, where it is, and `remedy`, what to do (as its reader can do it).
    public func description(remedy: String) -> String {
        var location = file
        if let entryIndex { location += ", entry \(entryIndex)" }
        if let field { location += ", field \"\(field)\"" }
        return "\(location): \(message). Nothing was imported; \(remedy)."
    }
}
