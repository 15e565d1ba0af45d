import Foundation
import WorldCupModel

/// Writes seed-shaped JSON as fast as the disk takes it: one entry at a time into a buffer,
/// never a tree of a million objects (`JSONEncoder` spends seconds there).
///
/// The bytes are exactly those of `JSONEncoder` with `.sortedKeys`: keys in the order
/// `imageName`, `qualifyingZone`, `teamName`, `wins`, no spaces, text as UTF-8 with `"`, `\`,
/// `/` and control characters escaped as `JSONEncoder` escapes them.
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
        let start = EntryStart(imageName: entry.imageName.map(Text.init), qualifyingZone: Text(entry.qualifyingZone))
        try write(teamNameUTF8: Array(entry.teamName.utf8), after: start, wins: entry.wins)
    }

    /// A text written as a JSON string once, for a field many entries share (a zone).
    public struct Text {
        fileprivate var json: [UInt8] = []

        public init(_ text: String) {
            var copy = text
            copy.withUTF8 { SeedFileWriter.appendString($0, to: &json) }
        }
    }

    /// An entry's JSON up to its team's name (its image name and zone, with their keys), made
    /// once for all the entries that share them: an entry then costs one append before its
    /// name, not five.
    public struct EntryStart {
        fileprivate let json: [UInt8]

        public init(imageName: Text?, qualifyingZone: Text) {
            json =
                SeedFileWriter.imageNameKey + (imageName?.json ?? SeedFileWriter.null)
                + SeedFileWriter.qualifyingZoneKey + qualifyingZone.json + SeedFileWriter.teamNameKey
        }
    }

    /// Appends one entry from its prepared start and its name's UTF-8 bytes: the same bytes as
    /// ``write(_:)`` writes for that entry, without a string per field.
    public mutating func write(teamNameUTF8 teamName: [UInt8], after start: EntryStart, wins: Int) throws {
        if count > 0 { buffer.append(UInt8(ascii: ",")) }
        count += 1
        buffer += start.json
        teamName.withUnsafeBufferPointer { Self.appendString($0, to: &buffer) }
        buffer += Self.winsKey
        appendNumber(wins)
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

    private static let imageNameKey = Array(#"{"imageName":"#.utf8), null = Array("null".utf8)
    private static let qualifyingZoneKey = Array(#","qualifyingZone":"#.utf8),
        teamNameKey = Array(#","teamName":"#.utf8)
    private static let winsKey = Array(#","wins":"#.utf8)

    private mutating func appendNumber(_ number: Int) {
        guard number >= 0 else { return append(String(number)) }
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

    private mutating func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
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
