import Foundation
import GRDB
import TestSupport
import Testing

/// Issue 22's reproduction at a size the suite runs fast: search in the real binary, in a real
/// terminal, over every match of a generated store.
@Suite(.serialized) struct SearchEndToEndTests {
    @Test func everyMatchOfAGeneratedStoreIsCountedAndNReachesTheLast() throws {
        let directory = TemporaryDirectory()
        let file = directory.path + "/big.json"
        let generated = try WorldCupProcess.run([
            "generate", "--teams", "20000", "--random-seed", "1", "--output", file,
        ])
        try #require(generated.status == 0, "\(generated.stderr)")
        let imported = try WorldCupProcess.run(["import", file, "--db", directory.store])
        try #require(imported.status == 0, "\(imported.stderr)")
        // The oracle: SQLite's own answer; the last match is the first in the standings' order reversed.
        let (count, last) = try DatabaseQueue(path: directory.store).read { db in
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM team WHERE instr(lower(teamName), 'nor') > 0")!
            let last = try String.fetchOne(
                db,
                sql: """
                    SELECT teamName FROM team WHERE instr(lower(teamName), 'nor') > 0
                    ORDER BY qualifyingZone COLLATE NOCASE DESC, wins, teamName COLLATE NOCASE DESC, id DESC LIMIT 1
                    """)!
            return (count, last)
        }
        try #require(count > 1_000, "more matches than the old cap: \(count)")
        let grouped = count.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))

        let terminal = try Tmux(command: directory.scoreboard)
        #expect(terminal.waitFor("World Cup — 20,000 teams", timeout: 30), "every team loaded")
        try terminal.type("/nor")
        try terminal.press("Enter")
        #expect(
            terminal.wait(timeout: 20) { _ in terminal.statusLine.hasPrefix("/nor — 1 of \(grouped)") },
            "\(terminal.statusLine)")
        try terminal.press("N")
        #expect(
            terminal.wait { _ in terminal.statusLine.hasPrefix("/nor — \(grouped) of \(grouped)") },
            "\(terminal.statusLine)")
        #expect(terminal.statusLine.contains("search hit TOP, continuing at BOTTOM"), "\(terminal.statusLine)")
        #expect(
            terminal.cursorLine?.contains(" \(last) ") == true,
            "the last match: \(last); cursor on \(terminal.cursorLine ?? "?")")
    }
}
