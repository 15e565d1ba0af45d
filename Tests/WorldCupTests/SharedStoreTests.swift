import FetchedResultsPostgreSQL
import Foundation
import TerminalUI
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

/// The PostgreSQL store's own rules: a score counts once per key, and a connection cut while
/// a score commits is resolved by sending it again with its key, never by guessing.
@Suite(.serialized) struct SharedStoreTests {
    static func seededStore(
        doubtTimeout: Duration = PostgreSQLTeamStore.defaultDoubtTimeout
    ) throws -> (PostgreSQLTeamStore, SharedDatabase) {
        let database = try SharedDatabase()
        let store = try PostgreSQLTeamStore.open(conninfo: database.uri(), doubtTimeout: doubtTimeout)
        try store.seedIfNeeded { .file(Fixtures.seedPath) }
        return (store, database)
    }

    static func teamID(_ name: String, _ database: SharedDatabase) throws -> Int64 {
        Int64(try database.connect().execute("SELECT id FROM team WHERE team_name = $1", [name]).scalar!)!
    }

    /// An attempt whose reply was lost after it committed is sent again with the same key:
    /// the server finds the key and counts nothing more.
    @Test func aScoreSentAgainWithItsKeyCountsOnce() throws {
        let (store, database) = try Self.seededStore()
        let ghana = try Self.teamID("Ghana", database)
        let key = ScoreKey()
        #expect(try store.addWin(teamID: ghana, key: key)?.wins == 1)
        #expect(try store.addWin(teamID: ghana, key: key)?.wins == 1)
        #expect(try store.addWins(to: "ghana", count: 5, key: key).wins == 1, "a key already used counts nothing")
        #expect(try store.addWin(teamID: ghana, key: ScoreKey())?.wins == 2)
        let undo = ScoreKey()
        #expect(
            try store.takeBackWin(teamID: ghana, key: undo)
                == .undone(
                    Team(id: ghana, teamName: "Ghana", qualifyingZone: "Africa", imageName: "ghana-flag", wins: 1)))
        _ = try store.takeBackWin(teamID: ghana, key: undo)
        #expect(try database.wins()["Ghana"] == 1)
        #expect(try database.connect().execute("SELECT count(*) FROM score_receipt").scalar == "3")
    }

    /// The server ends the connection while the `COMMIT` of a win runs (a deferred trigger
    /// terminates its own session, once): the store does not know whether the win counted,
    /// reconnects, sends it again with its key, and the win counts exactly once.
    @Test func aConnectionCutDuringTheCommitIsResolvedByTheKey() throws {
        let (store, database) = try Self.seededStore()
        try database.cutCommitsOfScores(times: 1)
        let japan = try Self.teamID("Japan", database)
        #expect(try store.addWin(teamID: japan, key: ScoreKey())?.wins == 1)
        #expect(
            try database.connect().execute("SELECT last_value FROM commits_cut").scalar == "2",
            "the first attempt was cut, the second counted")
        #expect(try database.wins()["Japan"] == 1)
    }

    /// When every attempt is cut during its commit until the store's patience runs out, the
    /// score is reported in doubt: neither as done nor as not done.
    @Test func aScoreWhoseOutcomeStaysUnknownIsSaidToBeInDoubt() throws {
        let (store, database) = try Self.seededStore(doubtTimeout: .milliseconds(300))
        try database.cutCommitsOfScores(times: nil)
        let iran = try Self.teamID("Iran", database)
        #expect {
            try store.addWin(teamID: iran, key: ScoreKey())
        } throws: { error in
            guard let error = error as? StoreError, error.reason == .scoreInDoubt else { return false }
            return error.description.contains("check with worldcup list before scoring again")
        }
        #expect(try database.wins()["Iran"] == 0)
    }

    /// The server restarted while the store's connection sat idle: the next write, of any
    /// kind, reconnects instead of failing on the closed connection.
    @Test func theFirstWriteAfterAServerRestartSucceeds() throws {
        let cluster = try TemporaryCluster()
        let database = try SharedDatabase(in: cluster)
        let store = try PostgreSQLTeamStore.open(conninfo: database.uri())
        try store.seedIfNeeded { .file(Fixtures.seedPath) }
        try cluster.restart()
        #expect(try store.addTeam(name: "Wenderland", zone: "Internets").teamName == "Wenderland")
        try cluster.restart()
        #expect(try store.standings().map(\.zone).contains("Internets"))
    }
}

/// The scoreboard on the shared store, drawn into an in-memory grid.
@Suite(.serialized) struct SharedScoreboardScreenTests {
    /// A win whose commit stays in doubt is said to be, kept, and counted exactly once at the
    /// first look after the connection works again; the commit log hears of it only then.
    @Test func aWinInDoubtIsSentAgainWithItsKeyOnceTheStoreIsBack() throws {
        TextWidth.prepareLocale()
        let (store, database) = try SharedStoreTests.seededStore(doubtTimeout: .milliseconds(200))
        let driver = try ScoreboardDriver(store: store, columns: 100)
        let grid = driver.grid, screen = driver.screen
        var reported: [String] = []
        screen.didCommit = { reported.append($0.teamName) }
        try database.cutCommitsOfScores(times: nil)
        driver.press(.enter)  // the cursor starts on Algeria
        // The message wraps over the status line's rows.
        let status = SharedScoreboardStatusTests.status(screen, grid)
        #expect(status.hasPrefix("Win for Algeria in doubt: the connection broke during its commit."), "\(status)")
        #expect(reported.isEmpty)
        #expect(try database.wins()["Algeria"] == 0)

        try database.stopCuttingCommits()
        driver.advance(by: ScoreboardProgram.doubtLookInterval)
        #expect(
            grid.line(39).hasPrefix("The win for Algeria, in doubt while the server was away, is counted once."),
            "\(grid.line(39))")
        #expect(reported == ["Algeria"])
        #expect(try database.wins()["Algeria"] == 1)
        #expect(grid.lines.contains { $0.contains(" Algeria ") && $0.split(separator: " ").last == "1" })
    }
}

/// What the status line says as the scoreboard's connection comes and goes (issue 22, bugs 3
/// and 10), drawn into an in-memory grid.
@Suite(.serialized) struct SharedScoreboardStatusTests {
    /// A screen on `database` as `role`, drawn into a grid of the given size.
    static func screen(
        _ database: SharedDatabase, role: String, rows: Int = 24,
        columns: Int = 80
    ) throws -> (ScoreboardScreen, GridSurface) {
        TextWidth.prepareLocale()
        let store = try PostgreSQLTeamStore.open(conninfo: database.uri(role: role))
        let grid = GridSurface(rows: rows, columns: columns)
        let screen = try ScoreboardScreen(store: store, surface: grid, renderer: TeamRowRenderer(showsFlags: false))
        screen.render()
        return (screen, grid)
    }

    /// The rows under the list, joined: the status line, however many rows it takes.
    static func status(_ screen: ScoreboardScreen, _ grid: GridSurface) -> String {
        (screen.tableView.top + screen.tableView.height..<grid.rows).map(grid.line).joined(separator: " ")
    }

    static func press(_ screen: ScoreboardScreen, _ key: Key) {
        if case let .write(write) = screen.handle(key) { screen.perform(write) }
        screen.render()
    }

    /// In a viewer, Enter's "Read-only: …" and in a scorer u's "Took back a win…" give way to
    /// "Reconnecting to …" at the first look after the server went away, without a key.
    @Test func theConnectionsStateReplacesAnOlderMessage() throws {
        let cluster = try TemporaryCluster()
        let database = try SharedDatabase(in: cluster)
        let owner = try PostgreSQLTeamStore.open(conninfo: database.uri())
        try owner.seedIfNeeded { .file(Fixtures.seedPath) }
        try database.createRoles()
        let (viewer, viewerGrid) = try Self.screen(database, role: "viewer")
        let (scorer, scorerGrid) = try Self.screen(database, role: "scorer")
        Self.press(viewer, .enter)
        #expect(Self.status(viewer, viewerGrid).hasPrefix("Read-only: "), "\(Self.status(viewer, viewerGrid))")
        Self.press(scorer, .enter)
        Self.press(scorer, .character("u"))
        let scorerStatus = Self.status(scorer, scorerGrid)
        #expect(scorerStatus.hasPrefix("Took back a win from Algeria."), "\(scorerStatus)")

        try cluster.stopServer()
        for (screen, grid) in [(viewer, viewerGrid), (scorer, scorerGrid)] {
            // What the event loop does when the connection's socket wakes it.
            #expect(screen.showExternalChanges(at: .now))
            screen.render()
            #expect(Self.status(screen, grid).hasPrefix("Reconnecting to "), "\(Self.status(screen, grid))")
        }
        try cluster.startServer()
    }

    /// The viewer's refusal keeps its advice at 80 columns and narrower: it wraps.
    @Test func aViewersRefusalKeepsItsAdviceInNarrowWindows() throws {
        let database = try SharedDatabase()
        let owner = try PostgreSQLTeamStore.open(conninfo: database.uri())
        try owner.seedIfNeeded { .file(Fixtures.seedPath) }
        try database.createRoles()
        for (rows, columns) in [(24, 80), (15, 60), (12, 40)] {
            let (viewer, grid) = try Self.screen(database, role: "viewer", rows: rows, columns: columns)
            Self.press(viewer, .enter)
            let status = Self.status(viewer, grid)
            #expect(
                status.hasPrefix("Read-only: the PostgreSQL role \"viewer\" may not add wins"),
                "\(rows)×\(columns): \(status)")
            #expect(status.contains("ask the database's owner for the grant"), "\(rows)×\(columns): \(status)")
            #expect(!status.contains("…"), "\(rows)×\(columns): nothing cut: \(status)")
            #expect(viewer.tableView.cursorScreenRow != nil, "the selected team stays on screen")
        }
    }
}
