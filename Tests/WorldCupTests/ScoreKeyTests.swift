import Foundation
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupStores

/// A score's key on each store: a score done again with the same key counts once, whatever
/// the store, and an undo answers the same on both.
@Suite struct ScoreKeyTests {
    enum Kind: CaseIterable { case sqlite, postgresql }

    /// A seeded store of `kind`; the folder or database lives as long as the test holds it.
    static func store(_ kind: Kind) throws -> (store: any ScoreStore, keepAlive: Any) {
        switch kind {
        case .sqlite:
            let directory = TemporaryDirectory()
            return (try Fixtures.seededStore(in: directory), directory)
        case .postgresql:
            let database = try SharedDatabase()
            let store = try PostgreSQLTeamStore.open(conninfo: database.uri())
            try store.seedIfNeeded { .file(Fixtures.seedPath) }
            return (store, database)
        }
    }

    static func team(_ name: String, _ store: any ScoreStore) throws -> Team {
        try #require(try store.teamsInStandingsOrder().first { $0.teamName == name })
    }

    @Test(arguments: Kind.allCases)
    func aScoreDoneAgainWithItsKeyCountsOnce(_ kind: Kind) throws {
        let (store, keepAlive) = try Self.store(kind)
        defer { withExtendedLifetime(keepAlive) {} }
        let ghana = try #require(try Self.team("Ghana", store).id)
        let key = ScoreKey()
        #expect(try store.addWin(teamID: ghana, key: key)?.wins == 1)
        #expect(try store.addWin(teamID: ghana, key: key)?.wins == 1, "the same key again counts nothing")
        #expect(try store.addWins(to: "ghana", count: 5, key: key).wins == 1, "a key already used counts nothing")
        let command = ScoreKey()
        #expect(try store.addWins(to: "Ghana", count: 3, key: command).wins == 4)
        #expect(try store.addWins(to: "Ghana", count: 3, key: command).wins == 4)
        let undo = ScoreKey()
        #expect(try store.takeBackWin(teamID: ghana, key: undo) == .undone(try Self.team("Ghana", store)))
        #expect(try Self.team("Ghana", store).wins == 3)
        _ = try store.takeBackWin(teamID: ghana, key: undo)
        #expect(try Self.team("Ghana", store).wins == 3, "the same undo again takes back nothing more")
    }

    /// An undo naming a key no win was counted with is told so, whether or not the team is
    /// still in the store.
    @Test(arguments: Kind.allCases)
    func anUndoWithAnUnknownKeyIsAnUnknownWinEvenForATeamGone(_ kind: Kind) throws {
        let (store, keepAlive) = try Self.store(kind)
        defer { withExtendedLifetime(keepAlive) {} }
        let ghana = try Self.team("Ghana", store)
        let teamID = try #require(ghana.id)
        let win = ScoreKey()
        #expect(try store.addWin(teamID: teamID, clientKey: win) == .done(teamID: teamID, wins: 1))
        #expect(try store.takeBackWin(teamID: teamID, winKey: ScoreKey()) == .unknownWin)
        _ = try store.removeTeam(named: "Ghana")
        #expect(try store.takeBackWin(teamID: teamID, winKey: ScoreKey()) == .unknownWin)
        #expect(try store.takeBackWin(teamID: teamID, winKey: win) == .teamGone)
        #expect(try store.addWin(teamID: teamID, clientKey: win) == .done(teamID: teamID, wins: 1))
    }
}
