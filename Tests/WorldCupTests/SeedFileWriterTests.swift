import Foundation
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// `generate`'s streaming writer and its name set, against Foundation's encoder and `Set`.
@Suite struct SeedFileWriterTests {
    /// The writer's bytes are exactly `JSONEncoder`'s with sorted keys, on generated teams and
    /// on text that must be escaped.
    @Test func writesWhatJSONEncoderWrites() throws {
        var generator = TeamGenerator(seed: 11)
        var entries = generator.teams(count: 20_000, zones: 36)
        let awkward = [
            "quote \" and \\ backslash", "a/b", "tab\tnew\nline\r", "bell \u{7} nul \u{0} esc \u{1B}[31m",
            "emoji 🏳️‍🌈 and 漢字", "\u{1F}\u{8}\u{C}", "ÜÑÎÇØDÉ",
        ]
        entries += awkward.enumerated().map { index, text in
            SeedEntry(
                teamName: text, qualifyingZone: awkward[(index + 1) % awkward.count],
                imageName: index % 2 == 0 ? nil : text,
                wins: index * 1_000_000_007)
        }
        let directory = TemporaryDirectory()
        let path = directory.path + "/written.json"
        var writer = try #require(SeedFileWriter(path: path))
        for entry in entries { try writer.write(entry) }
        try writer.finish()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == encoder.encode(entries))
        // The importer reads the generated teams back; the awkward ones hold a NUL, which it refuses.
        let generatedPath = directory.path + "/generated.json"
        var generatedWriter = try #require(SeedFileWriter(path: generatedPath))
        for entry in entries.prefix(20_000) { try generatedWriter.write(entry) }
        try generatedWriter.finish()
        #expect(try SeedFile.read(path: generatedPath) == Array(entries.prefix(20_000)), "the importer reads it back")
        #expect(throws: WorldCupError.self) { try SeedFile.read(path: path) }
    }

    /// `generate`'s way, from names' bytes and prepared entry starts, writes the same bytes as entries.
    @Test func bytesAndPreparedTextsWriteWhatEntriesWrite() throws {
        let directory = TemporaryDirectory()
        var entryWriter = try #require(SeedFileWriter(path: directory.path + "/entries.json"))
        var byEntries = TeamGenerator(seed: 5)
        try byEntries.forEachTeam(count: 20_000, zones: 36) { try entryWriter.write($0) }
        try entryWriter.write(SeedEntry(teamName: "a \"/\\ \u{1}", qualifyingZone: "b/\t", imageName: nil, wins: 3))
        try entryWriter.finish()

        var byteWriter = try #require(SeedFileWriter(path: directory.path + "/bytes.json"))
        var byBytes = TeamGenerator(seed: 5)
        let starts = TeamGenerator.zones.map { SeedFileWriter.EntryStart(sharing: TeamGenerator.template(zone: $0)) }
        try byBytes.forEachTeamUTF8(count: 20_000, zones: 36) { name, zone, wins in
            try byteWriter.write(teamNameUTF8: name, after: starts[zone], wins: wins)
        }
        try byteWriter.write(
            teamNameUTF8: Array("a \"/\\ \u{1}".utf8),
            after: SeedFileWriter.EntryStart(
                sharing: SeedEntry(teamName: "", qualifyingZone: "b/\t", imageName: nil, wins: 0)), wins: 3)
        try byteWriter.finish()

        let written = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/bytes.json"))
        #expect(written.count > 1_000_000)
        #expect(written == (try Data(contentsOf: URL(fileURLWithPath: directory.path + "/entries.json"))))
    }

    @Test func anEmptyFileIsAnEmptyArray() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/empty.json"
        var writer = try #require(SeedFileWriter(path: path))
        try writer.finish()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "[]")
    }

    /// The set agrees with Swift's `Set` on random byte strings with many repeats, across
    /// several growths of its table (seed printed).
    @Test func byteStringSetAgreesWithSet() {
        let seed: UInt64 = 20_261_123
        print("ByteStringSet seed \(seed)")
        var random = SplitMix64(seed: seed)
        var ours = ByteStringSet(), reserved = ByteStringSet(), reference = Set<[UInt8]>()
        reserved.reserveCapacity(3_000)
        for step in 0..<50_000 {
            let member = (0..<Int.random(in: 1...6, using: &random)).map { _ in
                UInt8.random(in: 97...100, using: &random)
            }
            let inserted = reference.insert(member).inserted
            #expect(ours.insert(member) == inserted)
            #expect(reserved.insert(member) == inserted)
            if step == 100 { reserved.reserveCapacity(5_000) }
        }
        #expect(ours.count == reference.count && reserved.count == reference.count)
        ours._checkInvariants()
        reserved._checkInvariants()
    }

    /// The generator's table of suffix hints agrees with a `Dictionary` over thousands of hashes,
    /// across several growths, many of them equal in the low bits it starts probing from
    /// (seed printed).
    @Test func suffixHintsAgreeWithADictionary() {
        let seed: UInt64 = 20_261_124
        print("SuffixHints seed \(seed)")
        var random = SplitMix64(seed: seed)
        var ours = SuffixHints(), reference: [UInt64: Int] = [:]
        let hashes = (0..<6_000).map { index in
            index % 3 == 0 ? UInt64(index) << 20 : UInt64.random(in: 0...UInt64.max, using: &random)
        }
        for _ in 0..<40_000 {
            let hash = hashes.randomElement(using: &random)!
            #expect(ours.number(for: hash) == reference[hash, default: 2])
            let number = Int.random(in: 2...1_000_000, using: &random)
            ours.note(number, for: hash)
            reference[hash] = number
        }
        #expect(hashes.allSatisfy { ours.number(for: $0) == reference[$0, default: 2] })
    }
}
