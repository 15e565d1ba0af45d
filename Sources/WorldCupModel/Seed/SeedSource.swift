/// The teams an import or a first-launch seed brings: a file, or entries already in memory.
///
/// The stores read it (`entries()` and `stream(_:)` in the stores' module): one that can write
/// entries as they are read streams a file, so a file of any size is imported in bounded
/// memory; one that needs them all first takes every entry. Both check the file the same way,
/// and name the file, the entry and the field of a problem.
public struct SeedSource: Sendable {
    /// The file, as messages name it.
    public let file: String
    /// What the file is for, as messages name it when it cannot be read.
    public let kind: FileKind
    /// The teams, when they were handed over already read (or made) rather than as a file.
    public let given: [SeedEntry]?

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
}
