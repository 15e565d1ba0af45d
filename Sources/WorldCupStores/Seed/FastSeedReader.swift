import CSeedParser
import Foundation
import WorldCupModel

/// Reads a plain, valid seed-shaped file with RapidJSON's streaming reader, one entry at a time
/// and many times faster than `JSONDecoder`, in a small fixed amount of memory.
///
/// It only says yes or "ask the thorough reader": any file it does not fully accept — a syntax
/// error, a trailing comma, a wrong type, a blank or too long name, negative wins — makes it give
/// up, and ``SeedFile`` reads it with Foundation, which names the problem exactly. The content
/// rules are ``SeedEntry``'s own, so both readers accept the same files and give the same entries.
/// Duplicate names are not its concern: see ``entries(in:)``.
enum FastSeedReader {
    /// How a streamed read ended.
    enum Outcome: Equatable {
        /// Every entry was handed over; `count` of them, at least one.
        case read(count: Int)
        /// The file needs the thorough reader (the entries handed over so far are to be undone).
        case gaveUp
    }

    /// Hands each entry of the file at `path` to `body` in order, with the share of the file's
    /// bytes read so far. An error `body` throws stops the read and comes out as it is.
    static func forEachEntry(inFileAt path: String, _ body: (SeedEntry, Double) throws -> Void) throws -> Outcome {
        try forEachFields(inFileAt: path) { fields, share in try body(fields.entry, share) }
    }

    /// Hands each entry of the document in `data` to `body`, as ``forEachEntry(inFileAt:_:)``.
    static func forEachEntry(in data: Data, _ body: (SeedEntry, Double) throws -> Void) throws -> Outcome {
        try data.withUnsafeBytes { bytes in
            try reading(size: bytes.count, { fields, share in try body(fields.entry, share) }) {
                keys, context, callback in
                seed_parser_read_bytes(
                    bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count, keys.baseAddress, keys.count,
                    context, callback)
            }
        }
    }

    /// Hands each entry of the file at `path` to `body` as checked, trimmed bytes, without
    /// making a `String` of a field that needs no trimming.
    static func forEachFields(inFileAt path: String, _ body: (SeedFields, Double) throws -> Void) throws -> Outcome {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        return try reading(size: size, body) { keys, context, callback in
            seed_parser_read_file(path, keys.baseAddress, keys.count, context, callback)
        }
    }

    /// Every entry of a document with no two names equal ignoring ASCII case; nil when the
    /// thorough reader must read it.
    static func entries(in data: Data) -> [SeedEntry]? {
        collected { try forEachEntry(in: data, $0) }
    }

    /// Every entry of the file at `path`, as ``entries(in:)``.
    static func entries(inFileAt path: String) -> [SeedEntry]? {
        collected { try forEachEntry(inFileAt: path, $0) }
    }

    private static func collected(_ read: ((SeedEntry, Double) throws -> Void) throws -> Outcome) -> [SeedEntry]? {
        var entries: [SeedEntry] = []
        var names = ByteStringSet()
        struct Duplicate: Error {}
        let outcome = try? read { entry, _ in
            guard names.insert(Array(NoCase.key(entry.teamName).utf8)) else { throw Duplicate() }
            entries.append(entry)
        }
        return outcome == .read(count: entries.count) ? entries : nil
    }

    /// How the reader checks each of ``Team/userFields``, by its kind.
    private enum Rule {
        case text
        case optionalText
        case count(default: Int64?)

        init?(_ kind: TeamField.Kind) {
            switch kind {
            case .rowID: return nil
            case .text: self = .text
            case .optionalText: self = .optionalText
            case let .count(_, seedDefault): self = .count(default: seedDefault.map(Int64.init))
            }
        }
    }

    private static func reading(
        size: Int, _ body: (SeedFields, Double) throws -> Void,
        _ parse: (UnsafeBufferPointer<UnsafePointer<CChar>?>, UnsafeMutableRawPointer, seed_parser_callback) -> Int32
    ) throws -> Outcome {
        try withoutActuallyEscaping(body) { body in
            final class Reading {
                let body: (SeedFields, Double) throws -> Void
                let size: Int
                let rules = Team.userFields.compactMap { Rule($0.kind) }
                /// The entry's values, made again for each entry.
                let values: UnsafeMutableBufferPointer<SeedFields.Value>
                var count = 0
                var invalidEntry = false
                var error: (any Error)?
                init(body: @escaping (SeedFields, Double) throws -> Void, size: Int) {
                    self.body = body; self.size = size
                    values = .allocate(capacity: rules.count)
                    values.initialize(repeating: .absent)
                }
                deinit { values.deallocate() }

                /// Checks the parsed values into ``values``: true when every text is plain (no
                /// trimming), false when one needs the full rule, nil when a value is refused.
                func check(_ parsed: UnsafePointer<seed_parser_value>) -> Bool? {
                    var plain = true
                    for (index, rule) in rules.enumerated() {
                        let raw = parsed[index]
                        let text = UnsafeRawBufferPointer(start: raw.text, count: raw.length)
                        switch (rule, raw.kind) {
                        case (.text, SEED_PARSER_TEXT):
                            plain = plain && SeedFields.isPlainText(text)
                            values[index] = .text(text)
                        case (.optionalText, SEED_PARSER_TEXT):
                            // A text holding a NUL is for the full reader to name.
                            guard !SeedFields.holdsNUL(text) else { return nil }
                            // A null pointer would bind NULL: an empty text is text.
                            values[index] = .text(
                                UnsafeRawBufferPointer(
                                    start: raw.text.map(UnsafeRawPointer.init) ?? UnsafeRawPointer(bitPattern: 1),
                                    count: raw.length))
                        case (.optionalText, SEED_PARSER_NULL), (.optionalText, SEED_PARSER_ABSENT):
                            values[index] = .null
                        case (.count, SEED_PARSER_NUMBER) where raw.number >= 0:
                            values[index] = .number(raw.number)
                        case (.count(default: let seedDefault?), SEED_PARSER_ABSENT):
                            values[index] = .number(seedDefault)
                        default:
                            return nil
                        }
                    }
                    return plain
                }
            }
            let reading = Reading(body: body, size: size)
            let keys = Team.userFields.map { strdup($0.name) }
            defer { keys.forEach { free($0) } }
            let status = keys.map { UnsafePointer($0) }.withUnsafeBufferPointer { keys in
                parse(keys, Unmanaged.passUnretained(reading).toOpaque()) { context, parsed in
                    let reading = Unmanaged<Reading>.fromOpaque(context!).takeUnretainedValue()
                    guard let parsed = parsed?.pointee, let plain = reading.check(parsed.values) else {
                        reading.invalidEntry = true
                        return 1
                    }
                    let share = reading.size > 0 ? Double(parsed.bytes_read) / Double(reading.size) : 1
                    let fields = SeedFields(values: UnsafeBufferPointer(reading.values))
                    do {
                        if plain {
                            try reading.body(fields, share)
                        } else if let entry = FastSeedReader.checkedEntry(fields) {
                            try SeedFields.of(entry) { try reading.body($0, share) }
                        } else {
                            reading.invalidEntry = true
                            return 1
                        }
                    } catch {
                        reading.error = error
                        return 1
                    }
                    reading.count += 1
                    return 0
                }
            }
            if let error = reading.error { throw error }
            guard status == SEED_PARSER_READ, !reading.invalidEntry, reading.count > 0 else { return .gaveUp }
            return .read(count: reading.count)
        }
    }

    /// The entry, its texts trimmed, if each passes every content rule of ``SeedEntry``.
    private static func checkedEntry(_ fields: SeedFields) -> SeedEntry? {
        var entry = fields.entry
        for field in Team.userFields {
            guard case let .text(path) = field.kind else { continue }
            guard let text = SeedEntry.validatedText(entry.team[keyPath: path]) else { return nil }
            entry.team[keyPath: path] = text
        }
        return entry
    }
}
