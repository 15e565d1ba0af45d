import Foundation
import TerminalUI
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// The filter (`\`), drawn into an in-memory grid on each store: the list narrows to the teams
/// whose name contains the text as it is typed, with the zones and counts following, and
/// other writers' changes still arrive. The oracle: every team in the store, filtered here.
@Suite struct ScoreboardFilterTests {
    enum Kind: CaseIterable { case sqlite, postgresql }

    /// A seeded store of `kind` for the screen, and a second one on the same data for "another
    /// writer" and the oracle.
    static func stores(_ kind: Kind, in directory: TemporaryDirectory) throws -> (any ScoreStore, any ScoreStore) {
        switch kind {
        case .sqlite:
            let store = try Fixtures.seededStore(in: directory)
            return (store, try TeamStore.open(path: directory.path + "/store.sqlite"))
        case .postgresql:
            let database = try SharedDatabase()
            let store = try PostgreSQLTeamStore.open(conninfo: database.uri())
            try store.seedIfNeeded { .file(Fixtures.seedPath) }
            return (store, try PostgreSQLTeamStore.open(conninfo: database.uri()))
        }
    }

    /// ASCII letters folded, as the filter and search match.
    static func folded(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 }))
    }

    /// The teams of `store` whose names contain `text`, and their zones.
    static func expected(_ store: any ScoreStore, containing text: String) throws -> (names: Set<String>, zones: Int) {
        let zones = try store.standings().map {
            ($0.zone, $0.teams.filter { folded($0.teamName).contains(folded(text)) })
        }
        return (Set(zones.flatMap { $0.1.map(\.teamName) }), zones.filter { !$0.1.isEmpty }.count)
    }

    /// The names of the teams on the screen (each row: rank, code, name, wins).
    static func shownNames(_ driver: ScoreboardDriver, among all: [String]) -> Set<String> {
        let rows = driver.grid.lines.dropFirst(2).dropLast()
        return Set(all.filter { name in rows.contains { $0.contains(" \(name) ") } })
    }

    @Test(arguments: Kind.allCases)
    func theListNarrowsAsTextIsTypedAndEscShowsEveryTeam(_ kind: Kind) throws {
        let directory = TemporaryDirectory()
        let (store, other) = try Self.stores(kind, in: directory)
        let driver = try ScoreboardDriver(store: store)
        var all: [String] { ((try? other.standings()) ?? []).flatMap { $0.teams.map(\.teamName) } }
        let total = all.count

        driver.press(.character("\\"))
        driver.type("a")
        driver.type("N")
        #expect(driver.grid.line(0) == "World Cup — \(total) teams in 5 zones", "keys only edit the text")
        driver.runWaitingWork()
        var expected = try Self.expected(other, containing: "aN")
        #expect(expected.names.count > 1 && expected.names.count < total, "a filter that narrows")
        #expect(Self.shownNames(driver, among: all) == expected.names)
        #expect(
            driver.grid.line(0)
                == "World Cup — \(expected.names.count) of \(total) teams in \(expected.zones) zones"
                + " · names containing “aN”")
        // A rank among some of a zone's teams would not be a team's place in it: none shown.
        let rows = driver.grid.lines.filter { line in expected.names.contains { line.contains(" \($0) ") } }
        #expect(rows.count == expected.names.count && rows.allSatisfy { $0.prefix(5).allSatisfy(\.isWhitespace) })
        #expect(driver.grid.line(39).hasPrefix("\\aN  — \(expected.names.count) of \(total) teams"))

        // Enter keeps the filter; a win for the team under the cursor counts as ever.
        driver.press(.enter)
        #expect(driver.grid.line(39).hasPrefix("Filtered · Esc every team"), "\(driver.grid.line(39))")
        let cursorRow = try #require(driver.screen.tableView.cursorScreenRow)
        let selected = try #require(all.first { driver.grid.line(cursorRow).contains(" \($0) ") })
        driver.press(.enter)
        #expect(try other.standings().flatMap(\.teams).first { $0.teamName == selected }?.wins == 1)

        // Another writer renames a team into the filter and one out of it.
        let joining = try #require(all.first { !Self.folded($0).contains("an") })
        let leaving = try #require(expected.names.first { $0 != selected })
        try other.renameTeam(joining, to: joining + " Anew")
        try other.renameTeam(leaving, to: "Gone")
        driver.storeChanged()
        expected = try Self.expected(other, containing: "an")
        #expect(expected.names.contains(joining + " Anew") && !expected.names.contains("Gone"))
        #expect(Self.shownNames(driver, among: all) == expected.names)

        driver.press(.escape)
        #expect(driver.grid.line(0).hasPrefix("World Cup — \(total) teams in 5 zones · last change "))
        #expect(Self.shownNames(driver, among: all).contains("Gone"), "every team again")
        #expect(driver.grid.lines.contains { $0.hasPrefix("★  1") }, "ranks again")

        // Nothing matches: no rows, "0 of"; LIKE's wildcards are plain text. Esc in the line.
        driver.press(.character("\\"))
        driver.type("%")
        driver.runWaitingWork()
        #expect(Self.shownNames(driver, among: all).isEmpty)
        #expect(driver.grid.line(39).hasPrefix("\\%  — 0 of \(total) teams"), "\(driver.grid.line(39))")
        driver.press(.escape)
        #expect(driver.grid.line(0).hasPrefix("World Cup — \(total) teams in 5 zones · last change "))
    }
}
