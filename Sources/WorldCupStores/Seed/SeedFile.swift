import Foundation
import WorldCupModel

/// Reads a seed or import file: lenient in syntax, strict in content.
///
/// Lenient where hand-edited files really are: a UTF-8 byte-order mark and trailing commas are
/// accepted (the tutorial's own `seed.json` has trailing commas). Strict in content: every entry
/// has every field it must (``SeedEntry``) with the right types, non-empty names and zones, `wins` ≥ 0, and no two
/// names equal ignoring ASCII case. Any problem throws one ``SeedProblem`` naming the file, the
/// entry's index and the field.
public enum SeedFile {
    /// The entries of the file at `path`; `kind` names the file in the error when it cannot be
    /// read at all.
    public static func read(path: String, kind: FileKind = .seed) throws -> [SeedEntry] {
        if let entries = FastSeedReader.entries(inFileAt: path) { return entries }
        return try thoroughlyParse(try contents(path: path, kind: kind), file: path)
    }

    /// Throws the error ``read(path:kind:)`` would throw when the file cannot be opened or read
    /// at all (missing, a folder, no permission), before anything is done with it.
    public static func checkReadable(path: String, kind: FileKind) throws {
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            _ = try handle.read(upToCount: 1)
        } catch {
            throw unreadable(path: path, kind: kind, error: error)
        }
    }

    private static func contents(path: String, kind: FileKind) throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw unreadable(path: path, kind: kind, error: error)
        }
    }

    public static func parse(_ data: Data, file: String) throws -> [SeedEntry] {
        try FastSeedReader.entries(in: data) ?? thoroughlyParse(data, file: file)
    }

    /// Reads a file the fast reader gave up on: Foundation's decoder and the content rules,
    /// with the file, entry and field of the first problem.
    static func thoroughlyParse(_ data: Data, file: String) throws -> [SeedEntry] {
        func problem(_ message: String, entry: Int? = nil, field: String? = nil) -> WorldCupError {
            .seedInvalid(SeedProblem(file: file, entryIndex: entry, field: field, message: message))
        }
        if let offset = firstInvalidUTF8Offset(in: data) {
            throw problem("is not valid UTF-8 text (bad byte at offset \(offset)); save it as UTF-8")
        }
        let entries: [SeedEntry]
        do {
            entries = try JSONDecoder().decode([SeedEntry].self, from: data)
        } catch let error as DecodingError {
            let (entry, field, message) = describe(error, data: data)
            throw problem(message, entry: entry, field: field)
        }
        guard !entries.isEmpty else {
            throw problem("holds no teams; a seed needs at least one")
        }
        try checkNamesDiffer(entries, file: file)
        return entries
    }

    /// Throws for the first entry whose name an earlier entry has, ignoring ASCII case.
    static func checkNamesDiffer(_ entries: [SeedEntry], file: String) throws {
        var firstIndexByName: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            if let earlier = firstIndexByName.updateValue(index, forKey: NoCase.key(entry.teamName)) {
                throw WorldCupError.seedInvalid(
                    SeedProblem(
                        file: file, entryIndex: index, field: "teamName",
                        message:
                            "\"\(entry.teamName)\" is already the name of entry \(earlier) (names are case-insensitive)"
                    ))
            }
        }
    }

    /// Entry index, field name and a plain-words message for a decoding error.
    private static func describe(_ error: DecodingError, data: Data) -> (Int?, String?, String) {
        func locate(_ path: [any CodingKey]) -> (Int?, String?) {
            (path.first?.intValue, path.dropFirst().first?.stringValue)
        }
        switch error {
        case let .keyNotFound(key, context):
            let (entry, _) = locate(context.codingPath)
            return (entry, key.stringValue, "is missing")
        case let .valueNotFound(_, context):
            let (entry, field) = locate(context.codingPath)
            return (entry, field, "is null; it needs a value")
        case let .typeMismatch(type, context):
            if context.codingPath.isEmpty {
                return (nil, nil, "must hold an array of teams, " + SeedEntry.arrayExample)
            }
            let (entry, field) = locate(context.codingPath)
            if field == nil {
                return (entry, nil, "must be an object with " + SeedEntry.keySentence)
            }
            return (entry, field, "must be \(typeName(type)), " + foundPart(context.debugDescription))
        case let .dataCorrupted(context) where !context.codingPath.isEmpty:
            let (entry, field) = locate(context.codingPath)
            return (entry, field, context.debugDescription)
        case .dataCorrupted:
            return (nil, nil, "is not valid JSON (\(syntaxLocation(in: data)))")
        @unknown default:
            return (nil, nil, "cannot be read: \(error)")
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        type == Int.self ? "a whole number" : type == String.self ? "text" : "\(type)"
    }

    /// "found a string instead" out of Foundation's "Expected to decode Int but found a string instead."
    private static func foundPart(_ debugDescription: String) -> String {
        guard let range = debugDescription.range(of: "found ") else { return "found something else" }
        return String(debugDescription[range.lowerBound...]).trimmingCharacters(in: ["."])
    }

    /// Where the syntax error is, as "line L, column C", from JSONSerialization's character offset.
    private static func syntaxLocation(in data: Data) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return "its syntax is not accepted"
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            guard let match = detail.firstMatch(of: /character (\d+)/), let offset = Int(match.1) else {
                return detail.trimmingCharacters(in: ["."]).lowercased()
            }
            let prefix = data.prefix(offset)
            let line = prefix.filter { $0 == UInt8(ascii: "\n") }.count + 1
            let column = offset - (prefix.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
            return "syntax error at line \(line), column \(column)"
        }
    }

    private static func firstInvalidUTF8Offset(in data: Data) -> Int? {
        // The standard library's validation is fast; only a bad file is walked to find the byte.
        if String(validating: data, as: UTF8.self) != nil { return nil }
        var iterator = data.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case let .scalarValue(scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    private static func unreadable(path: String, kind: FileKind, error: any Error) -> WorldCupError {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return .fileIsAFolder(path: path, kind: kind)
        }
        switch (error as NSError).code {
        case NSFileReadNoSuchFileError: return .fileUnreadable(path: path, kind: kind, reason: "no such file")
        case NSFileReadNoPermissionError: return .fileUnreadable(path: path, kind: kind, reason: "permission denied")
        default: return .fileUnreadable(path: path, kind: kind, reason: (error as NSError).localizedDescription)
        }
    }
}
