import WorldCupModel

/// How the stores read a seed source: all at once, or streamed.
extension SeedSource {
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
