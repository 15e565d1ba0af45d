import Foundation
import TestSupport
import Testing

/// `serve` killed with SIGKILL while a page follows it, wins made while it is away, then started
/// again: the page reconnects by itself and ends equal to the store.
@Suite struct ServeRestartTests {
    @Test(arguments: StoreKind.allCases)
    func aPageCatchesUpWithAServeKilledAndStartedAgain(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let home = store.folder.path + "/home"
        let listen = "127.0.0.1:\(HTTPClient.freePort())"
        var serve = try ServeProcess(db: store.db, home: home, listen: listen)
        let browser = try WebDriver()
        try browser.open(serve.viewerLink)
        try #require(try browser.wait { try PageRows.read(browser).ready })
        #expect(try worldcup(["win", "Brazil"], db: store.db).status == 0)
        #expect(try browser.wait { try PageRows.read(browser).row(named: "Brazil")?.wins == 1 })

        serve.kill()
        #expect(try worldcup(["win", "Japan", "--count", "3"], db: store.db).status == 0)
        #expect(try worldcup(["add", "--name", "Wenderland", "--zone", "Internets"], db: store.db).status == 0)
        #expect(try worldcup(["win", "Wenderland"], db: store.db).status == 0)
        serve = try ServeProcess(db: store.db, home: home, listen: listen)
        let listed = try listedStandings(db: store.db)
        #expect(try browser.wait(timeout: 30) { try PageRows.read(browser).standings == listed })
        // And it follows the new server from there.
        #expect(try worldcup(["win", "Ghana"], db: store.db).status == 0)
        #expect(try browser.wait { try PageRows.read(browser).row(named: "Ghana")?.wins == 1 })
        #expect(try PageRows.read(browser).standings == listedStandings(db: store.db))
        #expect(serve.stop() == 0)
    }
}
