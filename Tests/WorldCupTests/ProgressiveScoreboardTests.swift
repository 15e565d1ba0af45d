import FetchedResultsSQLite
import Foundation
import GRDB
import TerminalUI
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// A store bigger than the scoreboard's first fetch: the first frame shows the first teams
/// while the rest loads behind it, keys and other writers work meanwhile, and once loaded the
/// screen is what a fresh scoreboard draws and the standings are the store's.
@Suite struct ProgressiveScoreboardTests {
    static let extraTeams = 3 * LoadPacer.firstRows

    @Test func theFirstTeamsShowAtOnceAndTheRestLoadsBehindThem() throws {
        TextWidth.prepareLocale()
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory, plusGenerated: Self.extraTeams, seed: 15)
        let total = 32 + Self.extraTeams
        let driver = try ScoreboardDriver(store: store, rows: 30)
        let grid = driver.grid, screen = driver.screen

        #expect(screen.isLoadingStandings)
        #expect(
            grid.line(0) == "World Cup — loading the standings: "
                + "\(Thousands.grouped(LoadPacer.firstRows)) teams so far")
        #expect(
            grid.line(29).hasSuffix(" 1 / \(Thousands.grouped(LoadPacer.firstRows))+ loading"),
            "the status line says more is coming")

        // Keys work during the load: a win for the team under the cursor counts at once.
        let first = try #require(try store.teamsInStandingsOrder().first)
        driver.press(.enter)
        #expect(try store.teamsInStandingsOrder().first { $0.id == first.id }?.wins == first.wins + 1)

        // Another writer changes teams inside and beyond what is loaded.
        let elsewhere = try TeamStore.open(path: store.path)
        let order = try store.teamsInStandingsOrder()
        try elsewhere.addWins(to: order[5].teamName, count: 3)
        try elsewhere.addWins(to: order[total - 10].teamName, count: 50)
        try elsewhere.addTeam(name: "Zanzibar Latecomers", zone: "Zzz")
        _ = screen.showExternalChanges(at: driver.now)
        screen.render()

        var steps = 0
        while screen.isLoadingStandings {
            screen.loadMoreStandings()
            screen.render()
            steps += 1
        }
        #expect(steps >= 1)
        let expected = try store.teamsInStandingsOrder()
        let results = screen.controller
        let shown = Fixtures.rowIDsInOrder(of: results)
        #expect(shown == expected.map(\.id!), "once loaded, the standings are the store's")
        #expect(
            grid.line(0).hasPrefix(
                "World Cup — \(Thousands.grouped(total + 1)) teams in \(results.numberOfSections) zones"))
        #expect(grid.line(29).hasSuffix(" / \(Thousands.grouped(total + 1))"), "and says no more once loaded")

        let fresh = GridSurface(rows: 30, columns: 80)
        let freshScreen = try ScoreboardScreen(
            store: store, surface: fresh, renderer: TeamRowRenderer(showsFlags: false))
        while freshScreen.isLoadingStandings { freshScreen.loadMoreStandings() }
        freshScreen.tableView.setCursor(screen.tableView.cursor)
        // The session's news, which a fresh scoreboard has not seen: the movement marks and
        // the last change's time.
        (freshScreen.movements, freshScreen.lastChange) = (screen.movements, screen.lastChange)
        freshScreen.tableView.scroll(toLine: screen.tableView.scrollTop)
        freshScreen.render()
        screen.render()
        #expect(grid.lines == fresh.lines, "the screen is what a fresh scoreboard draws")
    }

    /// The timer that paces a load runs a step without a look at the store first (the step
    /// follows the store itself); the store's descriptor turning readable still looks.
    @Test func aLoadStepsOnItsTimerWithoutLookingAtTheStore() throws {
        TextWidth.prepareLocale()
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory, plusGenerated: Self.extraTeams, seed: 16)
        let driver = try ScoreboardDriver(store: store, rows: 30)
        #expect(driver.screen.isLoadingStandings)
        #expect(driver.program.update(.timer, at: driver.now) == [.loadStep])
        #expect(driver.program.update(.storeReadable, at: driver.now) == [.look])

        // A commit elsewhere during the load wakes a look, and the load ends with the store's standings.
        let elsewhere = try TeamStore.open(path: store.path)
        let last = try #require(try store.teamsInStandingsOrder().last)
        try elsewhere.addWins(to: last.teamName, count: 100)
        driver.storeChanged()
        driver.runWaitingWork()
        #expect(!driver.screen.isLoadingStandings)
        let results = driver.screen.controller
        let shown = Fixtures.rowIDsInOrder(of: results)
        #expect(shown == (try store.teamsInStandingsOrder().map(\.id)))
    }

    /// The load's steps draw a frame when rows on screen change, when the load ends, and
    /// otherwise once a ``ScoreboardProgram/loadFrameInterval``; a frame per step took a tenth
    /// of a million-team load, for rows below the screen.
    @Test func aLoadDrawsAFrameWhenTheScreenChangesOrNowAndThen() throws {
        TextWidth.prepareLocale()
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory, plusGenerated: 20_000, seed: 16)
        let zones = Set(try store.teamsInStandingsOrder().map(\.qualifyingZone)).count

        // Time stands still: only the frames the steps call for.
        let still = try ScoreboardDriver(store: store, rows: 30)
        var steps = 0, framesBefore = still.grid.frames
        while still.screen.isLoadingStandings {
            let frames = still.grid.frames
            still.send(.timer)
            steps += 1
            if still.grid.frames > frames && still.screen.isLoadingStandings {
                #expect(still.screen.tableView.hasRowsToDraw == false, "a frame drew what changed")
            }
        }
        try #require(steps >= 3, "the load takes several steps")
        let drawn = still.grid.frames - framesBefore
        #expect(drawn >= 1 && drawn < steps, "\(drawn) frames for \(steps) steps")
        #expect(still.grid.line(0) == "World Cup — 20,032 teams in \(zones) zones", "the last step's frame")

        // A frame interval between steps: every step draws, and the heading counts on.
        let moving = try ScoreboardDriver(store: store, rows: 30)
        var headings: [String] = []
        steps = 0
        framesBefore = moving.grid.frames
        while moving.screen.isLoadingStandings {
            moving.advance(by: ScoreboardProgram.loadFrameInterval, tick: ScoreboardProgram.loadFrameInterval)
            steps += 1
            headings.append(moving.grid.line(0))
        }
        #expect(moving.grid.frames - framesBefore == steps)
        #expect(Set(headings).count == steps, "each frame shows more teams loaded")
    }

    /// A step that leaves a message on the status line (it failed) or ends the load draws at
    /// once, though no frame is due and no row on screen changed; any other step waits.
    @Test func aLoadStepThatEndsOrSaysSomethingDrawsAtOnce() throws {
        TextWidth.prepareLocale()
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory, plusGenerated: 5_000, seed: 17)
        let driver = try ScoreboardDriver(store: store, rows: 30)
        try #require(driver.screen.isLoadingStandings && !driver.screen.tableView.hasRowsToDraw)
        let program = driver.program, now = driver.now
        #expect(program.update(.loadStepped(finished: false, saidSomething: false), at: now) == [])
        #expect(program.update(.loadStepped(finished: false, saidSomething: true), at: now) == [.redraw])
        #expect(program.update(.loadStepped(finished: true, saidSomething: false), at: now) == [.redraw])
        #expect(
            program.update(.loadStepped(finished: false, saidSomething: false), at: now + .milliseconds(100))
                == [.redraw], "a frame is due")
    }
}
