import Foundation

/// One team as a seed or import file describes it: the tutorial's `seed.json` shape, an object
/// with a key for each of ``Team/userFields`` (`{ "teamName", "qualifyingZone", "imageName",
/// "wins" }`), read and checked by each field's ``TeamField/Kind``.
@dynamicMemberLookup
public struct SeedEntry: Equatable, Sendable {
    /// The longest team name or zone accepted, in characters: enough for any real name, and a
    /// clear error for a file that put something else there.
    public static let maximumTextLength = 100

    /// The team the entry describes; a file gives no row id, so it has none.
    public var team: Team

    public init(_ team: Team) {
        self.team = team
        self.team.id = nil
    }

    public init(teamName: String, qualifyingZone: String, imageName: String?, wins: Int) {
        self.init(Team(teamName: teamName, qualifyingZone: qualifyingZone, imageName: imageName, wins: wins))
    }

    /// The team's fields, as the entry's own (`entry.teamName`).
    public subscript<Value>(dynamicMember path: WritableKeyPath<Team, Value>) -> Value {
        get { team[keyPath: path] }
        set { team[keyPath: path] = newValue }
    }
}

extension SeedEntry: Decodable {
    /// A field's key in the file: its name.
    struct FieldKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// Decodes and validates one entry, field by field in ``Team/fields`` order; every problem
    /// is thrown with the entry's and the field's coding path so the reader can say exactly
    /// where it is.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        var team = Team.unfilled
        for field in Team.userFields {
            let key = FieldKey(stringValue: field.name)
            switch field.kind {
            case .rowID: continue
            case let .text(path): team[keyPath: path] = try Self.nonEmptyText(key, in: container)
            case let .optionalText(path):
                // Core Data's optional attributes: null or left out, as a hand-made file has them.
                let text = try container.decodeIfPresent(String.self, forKey: key)
                if text?.contains(Self.nul) == true {
                    throw DecodingError.dataCorruptedError(
                        forKey: key, in: container, debugDescription: Self.nulProblem)
                }
                team[keyPath: path] = text
            case let .count(path, seedDefault):
                if let seedDefault, !container.contains(key) {
                    team[keyPath: path] = seedDefault
                } else {
                    team[keyPath: path] = try Self.count(key, in: container)
                }
            }
        }
        self.init(team)
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

    private static func nonEmptyText(_ key: FieldKey, in container: KeyedDecodingContainer<FieldKey>) throws -> String {
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

    private static func count(_ key: FieldKey, in container: KeyedDecodingContainer<FieldKey>) throws -> Int {
        let count: Int
        do {
            count = try container.decode(Int.self, forKey: key)
        } catch {
            // The decoder reports fractions and out-of-range numbers without a coding path;
            // read the number again to say which entry holds it.
            if let number = try? container.decode(Double.self, forKey: key) {
                let problem =
                    number.rounded() == number
                    ? "\(number) is too large for a \(key.stringValue.singular) count"
                    : "must be a whole number, not \(number)"
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: problem)
            }
            throw error
        }
        guard count >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "must be 0 or more, not \(count)")
        }
        return count
    }
}

extension String {
    /// A plural field name's singular (`wins`, a win count).
    fileprivate var singular: String { hasSuffix("s") ? String(dropLast()) : self }
}

extension SeedEntry: Encodable {
    /// Writes the seed shape, every field under its key, with an absent text as null (not left
    /// out).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        for field in Team.userFields {
            let key = FieldKey(stringValue: field.name)
            switch field.value(of: team) {
            case let .text(text): try container.encode(text, forKey: key)
            case let .number(number): try container.encode(number, forKey: key)
            case .null: try container.encodeNil(forKey: key)
            }
        }
    }
}
