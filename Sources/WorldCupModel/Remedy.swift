/// What a person can do about a ``WorldCupError``, apart from what happened, so that each layer
/// words it in its own terms: the model without options ("choose another store"), the command
/// line with the option that does it ("choose another --db"). The message says what happened
/// once, in the model (``WorldCupError/description(wording:)``), with the remedy's words where
/// they read.
///
/// ``description`` is the model's wording, as it stands in the message: a clause, or a whole
/// sentence for the remedies that follow one.
public enum Remedy: Equatable, Sendable, CustomStringConvertible {
    /// Set the variable the message names (or `$HOME`), or name a store: a sentence.
    case setHomeOrChooseAStore
    /// Name a seed file: no place it was looked for had one. A sentence.
    case giveASeed
    /// Give the path of a file of this kind rather than the folder given.
    case giveAFile(FileKind, insteadOf: String)
    /// The file is there already: replace it, or choose another path.
    case replaceOrChooseAnotherFile(FileKind)
    /// Mend the seed or import file the problem is in.
    case fixTheFile
    /// Import again, leaving out the entries whose teams the store has.
    case skipTeamsInStore
    /// No team has the name given: see every team's. A sentence.
    case listTheTeams
    /// Use another store.
    case chooseAnotherStore
    /// Give the path of a store file rather than the folder given.
    case giveAStoreFile(insteadOf: String)

    public var description: String {
        switch self {
        case .setHomeOrChooseAStore: "Set one, or choose a store."
        case .giveASeed: "Set WORLDCUP_SEED to the tutorial's seed.json."
        case let .giveAFile(kind, folder): "give \(kind.wanted(in: folder))"
        case .replaceOrChooseAnotherFile: "replace it, or choose another path"
        case .fixTheFile: "fix the file and try again"
        case .skipTeamsInStore: "import again leaving out the teams already in the store"
        case .listTheTeams: "The standings show every team's name."
        case .chooseAnotherStore: "choose another store"
        case let .giveAStoreFile(folder):
            "give the path of a store file (made if missing), such as \(FileKind.inside(folder, "worldcup.sqlite"))"
        }
    }
}
