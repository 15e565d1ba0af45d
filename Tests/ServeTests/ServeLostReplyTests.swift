import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

/// A tap whose reply is lost: the server is killed after its commit and before its reply, then
/// restarted; the page sends the tap again with the same key, and it counts once.
@Suite struct ServeLostReplyTests {
    /// PostgreSQL holds the tap between its commit and its reply: with a synchronous standby
    /// that never comes, a `COMMIT` is written to the log and then waits (`SyncRep`) before
    /// answering. The test kills `serve` there, from outside, then lets the commit finish.
    @Test func aTapWhoseReplyWasLostCountsOnce() throws {
        // A cluster of its own: every commit in it is made to wait for a while.
        let cluster = try TemporaryCluster()
        let database = try SharedDatabase(in: cluster)
        let folder = TemporaryDirectory()
        let home = folder.path + "/home"
        let listen = "127.0.0.1:\(HTTPClient.freePort())"
        var serve = try ServeProcess(db: database.uri(), home: home, listen: listen)
        let browser = try WebDriver()
        try browser.open(try #require(serve.scorerLink))
        try #require(try browser.wait { try PageRows.read(browser).ready })
        let scoring = "return document.body.classList.contains('scoring');"
        try #require(try browser.wait { try browser.run(scoring) as? Bool == true })
        let japan = try #require(try PageRows.read(browser).row(named: "Japan"))

        let admin = try database.connect()
        try admin.execute("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
        try admin.execute("SELECT pg_reload_conf()")
        try browser.click(browser.element("li.team[data-id='\(japan.id)'] button.tap"))
        let waiting = browser.wait(timeout: 30) {
            (try? admin.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'").scalar) == "1"
        }
        try #require(waiting, "the tap's commit waits for its standby")
        serve.kill()
        try admin.execute("ALTER SYSTEM RESET synchronous_standby_names")
        try admin.execute("SELECT pg_reload_conf()")
        // The commit is in: one win, and nobody got its answer.
        #expect(try browser.wait { try database.wins()["Japan"] == 1 })
        let note = { try browser.run("return document.getElementById('scoring-note').textContent;") as? String ?? "" }
        #expect(try !note().hasPrefix("+1"))

        serve = try ServeProcess(db: database.uri(), home: home, listen: listen)
        #expect(try browser.wait(timeout: 60) { try note() == "+1 for Japan: 1 win" })
        #expect(try database.wins()["Japan"] == 1)
        #expect(try database.wins().values.reduce(0, +) == 1)
        #expect(try browser.wait { try PageRows.read(browser).row(named: "Japan")?.wins == 1 })
        #expect(serve.stop() == 0)
    }
}
