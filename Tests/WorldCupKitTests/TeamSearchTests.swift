import TestSupport
import Foundation
import GRDB
import Testing
@testable import WorldCupKit

/// The store's name search against an oracle: the standings filtered in Swift.
@Suite struct TeamSearchTests {
    @Test func matchesTheStandingsFilteredInSwiftForRandomTexts() throws {
        let seed: UInt64 = 20261123
        print("TeamSearchTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        let alphabet = Array("abAB_%\\ é日")
        var names: Set<String> = []
        while names.count < 300 {
            names.insert(String((0..<Int.random(in: 1...8, using: &random)).map { _ in alphabet.randomElement(using: &random)! }))
        }
        var caseFolded: Set<String> = []
        for raw in names {
            // Stored trimmed, and unique ignoring ASCII case.
            let name = raw.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, caseFolded.insert(NoCase.key(name)).inserted else { continue }
            try store.addTeam(name: name, zone: ["Africa", "Asia", "Zone é"].randomElement(using: &random)!)
            _ = try store.addWins(to: name, count: Int.random(in: 1...3, using: &random))
        }
        let standings = try store.teamsInStandingsOrder()
        for _ in 0..<200 {
            let text = String((0..<Int.random(in: 1...3, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let expected = standings.filter { NoCase.key($0.teamName).contains(NoCase.key(text)) }.map(\.id!)
            let found = try store.teamIDs(withNameContaining: text, limit: 10_000)
            try #require(found == expected, "text \(text.debugDescription)")
            let capped = try store.teamIDs(withNameContaining: text, limit: 3)
            #expect(capped == Array(expected.prefix(3)))
            // Narrowing: one more character, looked for among the first answer only.
            let longer = text + String(alphabet.randomElement(using: &random)!)
            let narrowed = try store.teamIDs(withNameContaining: longer, limit: 10_000, among: found)
            #expect(narrowed == standings.filter { NoCase.key($0.teamName).contains(NoCase.key(longer)) }.map(\.id!),
                    "narrowed \(longer.debugDescription)")
        }
    }
}
