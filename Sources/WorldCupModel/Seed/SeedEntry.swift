import Foundation

/// One team as a seed or import file describes it: the tutorial's `seed.json` shape,
/// `{ "teamName", "qualifyingZone", "imageName", "wins" }`.
public struct SeedEntry: Equatable, Sendable {
    /// The longest team name or zone accepted, in characters: enough for any real name, and a
    /// clear error for a file that put something else there.
    public static let maximumTextLength = 100

    public var teamName: String
    public var qualifyingZone: String
    public var imageName: String?
    public var wins: Int

    public init(teamName: String, qualifyingZone: String, imageName: String?, wins: Int) {
        self.teamName = teamName
        self.qualifyingZone = qualifyingZone
        self.imageName = imageName
        self.wins = wins
    }
}

extension SeedEntry: Decodable {
    enum CodingKeys: String, CodingKey {
        case teamName, qualifyingZone, imageName, wins
    }

    /// Decodes and validates one entry; every problem is thrown with the entry's and the
    /// field's coding path so the reader can say exactly where it is.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        teamName = try Self.nonEmptyText(.teamName, in: container)
        qualifyingZone = try Self.nonEmptyText(.qualifyingZone, in: container)
        // Core Data's imageName is optional: null or left out, as a hand-made file has it.
        imageName = try container.decodeIfPresent(String.self, forKey: .imageName)
        if imageName?.contains(Self.nul) == true {
            throw DecodingError.dataCorruptedError(
                forKey: .imageName, in: container, debugDescription: Self.nulProblem)
        }
        wins = try Self.winCount(in: container)
    }

    /// SQLite hands text back to C as far as its first NUL, so a name holding one would be
    /// stored whole and read cut ("E\u{0}x" as "E"): no text field may hold one.
    package static let nul: Character = "\u{0}"
    package static let nulProblem = "must not contain a NUL character (\\u0000), which the store cannot keep"

    /// A name or zone as stored: trimmed; nil when it is then empty, too long or holds a NUL.
    package static func validatedText(_ text: String) -> String? {
        let trimmed = trimmed(text)
        return trimmed.isEmpty || trimmed.count > maximumTextLength || trimmed.contains(nul) ? nil : trimmed
    }

    private static func trimmed(_ text: String) -> String {
        // Trimming is costly at a million entries; most names have nothing to trim.
        guard text.first?.isWhitespace != false || text.last?.isWhitespace != false else { return text }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func nonEmptyText(
        _ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>
    ) throws -> String {
        let text = trimmed(try container.decode(String.self, forKey: key))
        guard !text.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "must not be empty")
        }
        guard text.count <= maximumTextLength else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "is too long (\(text.count) characters; at most \(maximumTextLength))")
        }
        guard !text.contains(nul) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: nulProblem)
        }
        return text
    }

    private static func winCount(in container: KeyedDecodingContainer<CodingKeys>) throws -> Int {
        let wins: Int
        do {
            wins = try container.decode(Int.self, forKey: .wins)
        } catch {
            // The decoder reports fractions and out-of-range numbers without a coding path;
            // read the number again to say which entry holds it.
            if let number = try? container.decode(Double.self, forKey: .wins) {
                let problem =
                    number.rounded() == number
                    ? "\(number) is too large for a win count"
                    : "must be a whole number, not \(number)"
                throw DecodingError.dataCorruptedError(
                    forKey: .wins, in: container, debugDescription: problem)
            }
            throw error
        }
        guard wins >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .wins, in: container, debugDescription: "must be 0 or more, not \(wins)")
        }
        return wins
    }
}

extension SeedEntry: Encodable {
    /// Writes the seed shape, with `imageName` as null (not left out) when there is none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(teamName, forKey: .teamName)
        try container.encode(qualifyingZone, forKey: .qualifyingZone)
        try container.encode(imageName, forKey: .imageName)
        try container.encode(wins, forKey: .wins)
    }
}
