import WorldCupModel
import WorldCupStores

/// An error as the command line says it: the model and the stores say what happened, and where
/// what to do is to give an option (`--db`, `--seed`, `--force`…) or run a command, this words
/// the remedy with it. The model and the stores know no options; their own words serve the
/// scoreboard and `serve`.
enum CommandLineAdvice {
    /// The message's lines (several only for the places a seed was looked for, the first of
    /// them the option that would have named it).
    static func lines(for error: WorldCupError) -> [String] {
        if case let .seedNotFound(tried) = error {
            return WorldCupError.seedNotFound(tried: ["--seed PATH (not given)"] + tried).lines(wording: words)
        }
        return error.lines(wording: words)
    }

    /// The message for a PostgreSQL database `--db` names but that cannot be opened.
    static func message(for error: PostgreSQLStoreError) -> String {
        error.description(uriOption: "--db")
    }

    /// `remedy` in the command line's words.
    static func words(for remedy: Remedy) -> String {
        switch remedy {
        case .setHomeOrChooseAStore:
            "Set one, or pass --db PATH."
        case .giveASeed:
            "Pass --seed PATH or set WORLDCUP_SEED to the tutorial's seed.json."
        case let .giveAFile(kind, folder):
            if let option = option(naming: kind) {
                "\(option) needs \(kind.wanted(in: folder))"
            } else if kind == .importFile {
                "give the path of a file, such as a backup that worldcup export wrote"
            } else {
                remedy.description
            }
        case let .replaceOrChooseAnotherFile(kind):
            "pass --force to replace it, or choose another \(option(naming: kind) ?? "file")"
        case .skipTeamsInStore:
            "pass --skip-existing to import only the teams not in the store"
        case .listTheTeams:
            "Run 'worldcup list' to see every team."
        case .chooseAnotherStore:
            "choose another --db"
        case let .giveAStoreFile(folder):
            "--db needs the path of a store file (made if missing), such as \(FileKind.inside(folder, "worldcup.sqlite"))"
        case .fixTheFile:
            remedy.description
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
