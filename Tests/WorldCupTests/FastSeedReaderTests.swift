import CSeedParser
import Foundation
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// The fast reader (RapidJSON) against the thorough one (Foundation): it never accepts a file
/// the thorough reader refuses, and where both accept one they give the same entries.
@Suite struct FastSeedReaderTests {
    /// The property, for one document; returns whether the fast reader took it.
    @discardableResult
    static func check(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        check(Data(text.utf8), label: text, sourceLocation: sourceLocation)
    }

    @discardableResult
    static func check(_ data: Data, label: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let fast = FastSeedReader.entries(in: data)
        let thorough = try? SeedFile.thoroughlyParse(data, file: "test.json")
        if let fast {
            #expect(
                thorough == fast,
                "the fast reader accepted what the thorough one reads otherwise: \(label.prefix(200))",
                sourceLocation: sourceLocation)
        }
        return fast != nil
    }

    static func entry(
        _ name: String, zone: String = #""Zone""#, image: String = "\"flag\"", wins: String = "1", extra: String = ""
    ) -> String {
        #"{"teamName": \#(name), "qualifyingZone": \#(zone), "imageName": \#(image), "wins": \#(wins)\#(extra)}"#
    }

    @Test func plainFilesAreReadFastAndAlike() throws {
        var generator = TeamGenerator(seed: 5)
        let encoder = JSONEncoder()
        let data = try encoder.encode(generator.teams(count: 5000, zones: 36))
        #expect(Self.check(data, label: "generated"))
        #expect(Self.check("[" + Self.entry(#"" Padded name ""#, zone: #""\tTabbed zone\n""#) + "]"), "trimmed alike")
        #expect(Self.check("[" + Self.entry(#""\u00c9crin \"quoted\" \\ back""#, image: "null") + "]"), "escapes")
        #expect(
            Self.check("[" + Self.entry(#""No image""#, image: "null", extra: #", "colour": [1, {"x": 2}]"#) + "]"),
            "extra keys ignored")
        #expect(Self.check(#"[{"teamName": "Left out", "qualifyingZone": "Z", "wins": 0}]"#), "imageName left out")
        #expect(
            Self.check("[" + Self.entry(#""École""#) + "," + Self.entry(#""école""#) + "]"),
            "É and é differ (ASCII-only folding)")
    }

    @Test func everythingUnusualIsLeftToTheThoroughReader() {
        let unusual = [
            "[" + Self.entry(#""A""#) + ",]",  // trailing comma: accepted, by the thorough reader
            "\u{FEFF}[" + Self.entry(#""A""#) + "]",  // byte-order mark
            "[" + Self.entry(#""A""#) + "] 5",  // something after the array
            "[" + Self.entry(#""A""#) + "," + Self.entry(#""a""#) + "]",  // duplicate ignoring case
            "[" + Self.entry(#""""#) + "]", "[" + Self.entry(#""   ""#) + "]",  // blank name
            "[" + Self.entry(#""A""#, zone: #""""#) + "]",
            "[" + Self.entry("\"" + String(repeating: "x", count: 101) + "\"") + "]",  // too long
            "[" + Self.entry(#""A""#, wins: "-1") + "]", "[" + Self.entry(#""A""#, wins: "1.5") + "]",
            "[" + Self.entry(#""A""#, wins: "3.0") + "]", "[" + Self.entry(#""A""#, wins: "1e2") + "]",
            "[" + Self.entry(#""A""#, wins: "9223372036854775808") + "]",
            "[" + Self.entry(#""A""#, wins: "\"3\"") + "]",
            "[" + Self.entry("5") + "]", "[" + Self.entry("null") + "]", "[" + Self.entry(#""A""#, image: "7") + "]",
            #"[{"teamName": "A", "teamName": "B", "qualifyingZone": "Z", "imageName": null, "wins": 1}]"#,
            #"[{"qualifyingZone": "Z", "imageName": null, "wins": 1}]"#, "[]", "{}", "[1]", "[[]]", "", "[", "nul",
        ]
        for text in unusual {
            Self.check(text)
        }
        #expect(!Self.check("[" + Self.entry(#""A""#) + ",]"), "a trailing comma is the thorough reader's")
        #expect(!Self.check("[" + Self.entry(#""A""#, wins: "-1") + "]"))
    }

    /// Random damage to a valid file, byte by byte (seed printed): whatever the fast reader
    /// accepts, the thorough one reads the same.
    @Test func randomDamageNeverMakesThemDisagree() throws {
        let seed: UInt64 = 20_261_123
        print("FastSeedReaderTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        var generator = TeamGenerator(seed: 9)
        let valid = Array(try JSONEncoder().encode(generator.teams(count: 20, zones: 4)))
        let alphabet = Array(#"[]{}",:\ 0123456789-.eEtrufalsn"#.utf8) + [0xC3, 0xA9, 0x09, 0x0A, 0x00, 0xFF]
        var accepted = 0
        for round in 0..<3000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet.randomElement(using: &random)!, at: index)
                }
            }
            if Self.check(Data(bytes), label: "round \(round): \(String(decoding: bytes, as: UTF8.self))") {
                accepted += 1
            }
        }
        print("FastSeedReaderTests: the fast reader took \(accepted) of 3000 damaged files")
    }

    /// A value the parser handed back.
    enum Parsed: Equatable {
        case absent, null, text(String), number(Int64)
    }

    /// The parser's status and the values of `keys` in each entry of `document`.
    static func parse(_ document: String, keys: [String]) -> (status: Int32, entries: [[Parsed]]) {
        final class Collected {
            let keyCount: Int
            var entries: [[Parsed]] = []
            init(keyCount: Int) { self.keyCount = keyCount }
        }
        let collected = Collected(keyCount: keys.count)
        let names = keys.map { strdup($0) }
        defer { names.forEach { free($0) } }
        let bytes = Array(document.utf8)
        let status = names.map { UnsafePointer($0) }.withUnsafeBufferPointer { keys in
            bytes.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { bytes in
                    seed_parser_read_bytes(
                        bytes.baseAddress, bytes.count, keys.baseAddress, keys.count,
                        Unmanaged.passUnretained(collected).toOpaque()
                    ) { context, entry in
                        let collected = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
                        let values = UnsafeBufferPointer(start: entry!.pointee.values, count: collected.keyCount)
                        collected.entries.append(
                            values.map { value in
                                switch value.kind {
                                case SEED_PARSER_NULL: .null
                                case SEED_PARSER_TEXT:
                                    .text(
                                        String(
                                            decoding: UnsafeRawBufferPointer(start: value.text, count: value.length),
                                            as: UTF8.self))
                                case SEED_PARSER_NUMBER: .number(value.number)
                                default: .absent
                                }
                            })
                        return 0
                    }
                }
            }
        }
        return (status, collected.entries)
    }

    /// The parser hands back the value of each key it is given by the key's place in the list,
    /// whatever the order in the file, skips every other key whatever it holds, and gives up on a
    /// named key's value that is no text, whole number or null, or that comes twice.
    @Test func theParserHandsBackTheNamedKeysByPlace() {
        let read = Self.parse(
            #"[{"b": 7, "skip": [1.5, {"x": true}], "a": "t\u00e9xt", "c": null}, {"c": "", "d": 2}]"#,
            keys: ["a", "b", "c"])
        #expect(read.status == SEED_PARSER_READ)
        #expect(read.entries == [[.text("téxt"), .number(7), .null], [.absent, .absent, .text("")]])
        for refused in [#"[{"a": 1.5}]"#, #"[{"a": true}]"#, #"[{"a": 1, "a": 2}]"#, #"[{"a": {}}]"#, #"[{"a": []}]"#] {
            #expect(Self.parse(refused, keys: ["a"]).status == SEED_PARSER_GAVE_UP, "\(refused)")
        }
    }
}
