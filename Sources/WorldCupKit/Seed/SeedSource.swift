/// The teams an import or a first-launch seed brings: a file, or entries already in memory.
///
/// A store that can write entries as they are read (``TeamStore``) streams a file with
/// ``stream(_:)``, so a file of any size is imported in bounded memory; one that needs them all
/// first (``PostgreSQLTeamStore``) takes ``entries()``. Both check the file the same way, and
/// name the file, the entry and the field of a problem.
public struct SeedSource: Sendable {
    /// The file, as messages name it.
    public let file: String
    /// What the file is for, as messages name it when it cannot be read.
    let kind: FileKind
    private let given: [SeedEntry]?

    /// The teams of the seed-shaped file at `path` (a seed, or a file to import), read when the
    /// store asks for them.
    public static func file(_ path: String, kind: FileKind = .seed) -> SeedSource {
        SeedSource(file: path, kind: kind, given: nil)
    }

    /// Teams already read (or made), named `file` in messages.
    public init(entries: [SeedEntry], file: String) {
        self.init(file: file, kind: .seed, given: entries)
    }

    private init(file: String, kind: FileKind, given: [SeedEntry]?) {
        self.file = file
        self.kind = kind
        self.given = given
    }

    /// Every entry, checked in full: content, syntax, and no two names equal ignoring case.
    public func entries() throws -> [SeedEntry] {
        guard let given else { return try SeedFile.read(path: file, kind: kind) }
        try SeedFile.checkNamesDiffer(given, file: file)
        return given
    }

    /// Hands each entry's checked fields to `body` in order as they are read, with the share of
    /// the source read so far, without keeping them. Returns how many there were, or nil when the file needs the
    /// thorough reader: then `body` may have seen some of its entries, whose effects the caller
    /// undoes before asking for ``entries()`` (which throws the file's problem, if it has one).
    /// Names equal ignoring case are not looked for: the store's unique index finds them.
    func stream(_ body: (SeedFields, Double) throws -> Void) throws -> Int? {
        guard let given else {
            switch try FastSeedReader.forEachFields(inFileAt: file, body) {
            case let .read(count): return count
            case .gaveUp: return nil
            }
        }
        guard !given.isEmpty else { return nil }
        for (index, entry) in given.enumerated() {
            try SeedFields.of(entry) { try body($0, Double(index) / Double(given.count)) }
        }
        return given.count
    }
}
