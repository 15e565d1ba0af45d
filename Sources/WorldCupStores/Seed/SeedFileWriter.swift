import Foundation
import WorldCupModel

/// Writes seed-shaped JSON as fast as the disk takes it: one entry at a time into a buffer,
/// never a tree of a million objects (`JSONEncoder` spends seconds there).
///
/// The bytes are exactly those of `JSONEncoder` with `.sortedKeys` encoding a ``SeedEntry``:
/// a key for each of ``Team/userFields`` in sorted order, no spaces, text as UTF-8 with `"`,
/// `\`, `/` and control characters escaped as `JSONEncoder` escapes them.
public struct SeedFileWriter {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var count = 0
    private static let flushSize = 1 << 20

    /// Creates (or empties) the file at `path`, links followed, and writes into a device or a
    /// pipe rather than putting a file in its place; nil when it cannot be written.
    public init?(path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        self.init(handle: FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
    }

    /// Writes to `handle` (standard output, say).
    public init(handle: FileHandle) {
        self.handle = handle
        buffer.reserveCapacity(Self.flushSize + 4096)
        buffer.append(UInt8(ascii: "["))
    }

    /// Appends one entry.
    public mutating func write(_ entry: SeedEntry) throws {
        startEntry()
        for (index, field) in Self.sortedFields.enumerated() {
            buffer += index == 0 ? field.firstKey : field.key
            append(field.field.value(of: entry.team))
        }
        try endEntry()
    }

    /// The JSON of an entry around its team's name and wins, made once from an entry whose
    /// other fields many entries share (a generated zone's teams): an entry then costs one
    /// append before its name, one between its name and wins and one after.
    public struct EntryStart {
        fileprivate var beforeName: [UInt8] = []
        fileprivate var beforeWins: [UInt8] = []
        fileprivate var afterWins: [UInt8] = []

        /// The entry's JSON with `template`'s values for every field but its name and wins.
        public init(sharing template: SeedEntry) {
            var part = \EntryStart.beforeName
            for (index, field) in SeedFileWriter.sortedFields.enumerated() {
                self[keyPath: part] += index == 0 ? field.firstKey : field.key
                switch field.field.name {
                case "teamName": part = \.beforeWins
                case "wins": part = \.afterWins
                default:
                    var json: [UInt8] = []
                    SeedFileWriter.append(field.field.value(of: template.team), to: &json)
                    self[keyPath: part] += json
                }
            }
        }
    }

    /// Appends one entry from its prepared start and its name's UTF-8 bytes: the same bytes as
    /// ``write(_:)`` writes for that entry, without a string per field.
    public mutating func write(teamNameUTF8 teamName: [UInt8], after start: EntryStart, wins: Int) throws {
        startEntry()
        buffer += start.beforeName
        teamName.withUnsafeBufferPointer { Self.appendString($0, to: &buffer) }
        buffer += start.beforeWins
        appendNumber(wins)
        buffer += start.afterWins
        try endEntry()
    }

    private mutating func startEntry() {
        if count > 0 { buffer.append(UInt8(ascii: ",")) }
        count += 1
    }

    private mutating func endEntry() throws {
        buffer.append(UInt8(ascii: "}"))
        if buffer.count >= Self.flushSize { try flush() }
    }

    /// Ends the array and closes the file.
    public mutating func finish() throws {
        buffer.append(UInt8(ascii: "]"))
        try flush()
        try handle.close()
    }

    private mutating func flush() throws {
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// ``Team/userFields`` in the order of their keys, each with its key's JSON as the first
    /// key of an object and as a later one.
    private static let sortedFields = Team.userFields.sorted { $0.name < $1.name }.map { field in
        var key: [UInt8] = [], name = field.name
        name.withUTF8 { appendString($0, to: &key) }
        key.append(UInt8(ascii: ":"))
        return (field: field, firstKey: [UInt8(ascii: "{")] + key, key: [UInt8(ascii: ",")] + key)
    }

    private static let null = Array("null".utf8)

    private mutating func append(_ value: TeamFieldValue) {
        Self.append(value, to: &buffer)
    }

    /// Appends a field's value as JSON.
    fileprivate static func append(_ value: TeamFieldValue, to buffer: inout [UInt8]) {
        switch value {
        case var .text(text): text.withUTF8 { appendString($0, to: &buffer) }
        case let .number(number): appendNumber(number, to: &buffer)
        case .null: buffer += null
        }
    }

    private mutating func appendNumber(_ number: Int) {
        Self.appendNumber(number, to: &buffer)
    }

    private static func appendNumber(_ number: Int, to buffer: inout [UInt8]) {
        guard number >= 0 else { return buffer += String(number).utf8 }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { digits in
            var rest = number, index = digits.count
            repeat {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            buffer.append(contentsOf: digits[index...])
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Whether each byte value is written escaped: control characters, `"`, `\` and `/`.
    private static let escaped: [Bool] = (0...255).map { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x2F }

    /// Appends UTF-8 text as a JSON string, escaped as `JSONEncoder` escapes it.
    fileprivate static func appendString(_ bytes: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        guard escaped.withUnsafeBufferPointer({ escaped in bytes.contains { escaped[Int($0)] } }) else {
            buffer.append(contentsOf: bytes)
            buffer.append(UInt8(ascii: "\""))
            return
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): buffer += #"\""#.utf8
            case UInt8(ascii: "\\"): buffer += #"\\"#.utf8
            case UInt8(ascii: "/"): buffer += #"\/"#.utf8
            case 0x08: buffer += #"\b"#.utf8
            case 0x0C: buffer += #"\f"#.utf8
            case 0x0A: buffer += #"\n"#.utf8
            case 0x0D: buffer += #"\r"#.utf8
            case 0x09: buffer += #"\t"#.utf8
            case 0..<0x20:
                buffer += #"\u00"#.utf8
                buffer.append(hexDigits[Int(byte >> 4)])
                buffer.append(hexDigits[Int(byte & 0xF)])
            default: buffer.append(byte)
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }
}
