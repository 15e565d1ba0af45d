import Foundation
import TerminalUI
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// Screen-reader mode, drawn into an in-memory grid: the selection marked by a character and
/// the hardware cursor shown on it; each change set said as one sentence on the status line,
/// at most one every two seconds, the ones in between counted.
@Suite struct ScreenReaderTests {
    static func screen(in directory: TemporaryDirectory) throws -> (ScoreboardDriver, TeamStore) {
        let store = try Fixtures.seededStore(in: directory)
        let driver = try ScoreboardDriver(store: store)
        driver.screen.isScreenReaderMode = true
        driver.press(.home)
        return (driver, try TeamStore.open(path: directory.path + "/store.sqlite"))
    }

    @Test func theSelectionIsMarkedAndTheCursorShownOnIt() throws {
        let (driver, _) = try Self.screen(in: TemporaryDirectory())
        for _ in 0..<3 {
            let row = try #require(driver.screen.tableView.cursorScreenRow)
            let marked = driver.grid.lines.indices.filter { driver.grid.line($0).hasPrefix(">") }
            #expect(marked == [row], "only the selected row is marked")
            #expect(driver.grid.isCursorVisible && driver.grid.cursor == (row, 0))
            driver.press(.down)
        }
        driver.screen.isScreenReaderMode = false
        driver.press(.down)
        #expect(!driver.grid.lines.contains { $0.hasPrefix(">") } && !driver.grid.isCursorVisible)
    }

    @Test func eachChangeIsSaidAtMostEveryTwoSeconds() throws {
        let (driver, other) = try Self.screen(in: TemporaryDirectory())
        var status: String { driver.grid.line(39) }
        try other.addWins(to: "Ghana", count: 2)
        driver.storeChanged()
        #expect(status.hasPrefix("Ghana +2 → 2 wins, still 1st in Africa"), "\(status)")
        try other.addWins(to: "Nigeria", count: 1)
        driver.storeChanged()
        try other.addWins(to: "Algeria", count: 3)
        driver.storeChanged()
        #expect(status.hasPrefix("Ghana +2"), "the next waits its turn: \(status)")
        driver.advance(by: .seconds(2))
        // Algeria was shown 3rd, behind Ghana's 2 wins and Nigeria's 1.
        #expect(status.hasPrefix("Algeria +3 → 3 wins, ▲2 to 1st in Africa (and 1 more change)"), "\(status)")
        // This scoreboard's own win is said too; a key clears the line for the key's own news.
        driver.advance(by: .seconds(2))
        let selected = try #require(driver.screen.tableView.cursorScreenRow.map(driver.grid.line))
        #expect(selected.contains(" Algeria "), "\(selected)")
        driver.press(.enter)
        #expect(status.hasPrefix("Algeria +1 → 4 wins, still 1st in Africa"), "\(status)")
    }
}
