import Foundation
import TestSupport
import Testing

/// `worldcup serve` in a real headless Chromium, on both stores: what the page shows, what a
/// win from a shell changes in its DOM, and what taps do.
@Suite(.serialized) struct ServePageTests {
    @Test(arguments: StoreKind.allCases)
    func thePageShowsTheSeedInTheTerminalsOrder(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home")
        // Without JavaScript: the page as the server rendered it.
        let html = try HTTPClient.request("GET", serve.viewerLink)
        #expect(html.status == 200)
        #expect(html.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
        #expect(!html.text.contains("<script>"), "no inline script")
        let listed = try listedStandings(db: store.db)
        #expect(listed.count == 5 && listed.map(\.count).reduce(0, +) == 32 + 5)
        var position = html.text.startIndex
        for name in listed.flatMap({ $0 }).map({ String($0.split(separator: "=")[0]) }) {
            let escaped = name.replacingOccurrences(of: "&", with: "&amp;")
            let found = html.text.range(of: ">\(escaped)<", range: position..<html.text.endIndex)
            #expect(found != nil, "\(name) in the server's rendering, in order")
            position = found?.upperBound ?? position
        }
        // With it, once live.
        let browser = try WebDriver()
        try browser.open(serve.viewerLink)
        #expect(try browser.wait { try PageRows.read(browser).ready })
        let page = try PageRows.read(browser)
        #expect(page.standings == listed)
        #expect(page.sections.map(\.count) == listed.map { "\($0.count - 1) teams" })
        #expect(Set(page.sections.flatMap(\.rows).map(\.id)).count == 32)
        #expect(serve.stop() == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func aWinFromAShellChangesItsRowAndTheRanksItChanged(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home")
        let browser = try WebDriver()
        try browser.open(serve.viewerLink)
        try #require(try browser.wait { try PageRows.read(browser).ready })
        let algeria = try #require(try PageRows.read(browser).row(named: "Algeria"))
        // The rows a change touches: the team's own, and those whose shared rank it changed
        // (counted from the listed standings), which are in no change set.
        func reranked(_ before: [String: Int]) throws -> Set<String> {
            let after = try ServeMovementPageTests.ranks(db: store.db)
            let ids = try PageRows.read(browser).sections.flatMap(\.rows).filter { before[$0.name] != after[$0.name] }
            return Set(ids.map { "\($0.id)" })
        }
        // Algeria leads Africa by name at 0 wins: a win keeps it first, so it moves no team; the
        // four others go from a shared 1st to a shared 2nd.
        var ranks = try ServeMovementPageTests.ranks(db: store.db)
        try browser.run(MutationCounter.install)
        #expect(try worldcup(["win", "Algeria"], db: store.db).status == 0)
        #expect(try browser.wait { try PageRows.read(browser).row(named: "Algeria")?.wins == 1 })
        var others = try reranked(ranks)
        #expect(others.count == 4)
        #expect(try MutationCounter.touched(browser) == others.union(["\(algeria.id)"]))
        // Ghana's win moves it above Algeria's neighbours: one move, and the ranks it changed.
        let ghana = try #require(try PageRows.read(browser).row(named: "Ghana"))
        ranks = try ServeMovementPageTests.ranks(db: store.db)
        try browser.run(MutationCounter.install)
        #expect(try worldcup(["win", "Ghana", "--count", "2"], db: store.db).status == 0)
        #expect(try browser.wait { try PageRows.read(browser).row(named: "Ghana")?.wins == 2 })
        others = try reranked(ranks)
        #expect(others.contains("\(algeria.id)") && others.count == 5, "Ghana, Algeria and the three on 0 wins")
        #expect(try MutationCounter.touched(browser) == others)
        let applied = try browser.run("return window.worldcup.applied.map((a) => a.ids);") as? [[Int]] ?? []
        #expect(applied.last == [ghana.id], "the change set named Ghana only")
        #expect(try PageRows.read(browser).standings == listedStandings(db: store.db))
        #expect(serve.stop() == 0)
    }

    /// Change sets of hundreds of rows in one zone, as a load step behind the first rows is:
    /// the page rebuilds the zone's rows at once rather than one by one, and still ends equal to
    /// the store.
    @Test func bigChangeSetsInOneZoneLeaveThePageEqualToTheStore() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let browser = try WebDriver()
        try browser.open(serve.viewerLink)
        try #require(try browser.wait { try PageRows.read(browser).ready })
        let transactions = [
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
            INSERT INTO team (teamName, qualifyingZone, wins) SELECT 'Club ' || i, 'Europe', (i * 7) % 11 FROM n;
            """,
            "UPDATE team SET wins = (id * 5) % 9 WHERE qualifyingZone = 'Europe';",
            "DELETE FROM team WHERE qualifyingZone = 'Europe' AND id % 3 <> 0;",
        ]
        for sql in transactions {
            let run = try ProgramRun("/usr/bin/sqlite3", [folder.store, sql])
            try #require(run.status == 0, "\(run.stderr)")
            let listed = try listedStandings(db: folder.store)
            #expect(try browser.wait { try PageRows.read(browser).standings == listed }, "after: \(sql)")
        }
        #expect(
            try PageRows.read(browser).sections.map(\.count)
                == listedStandings(db: folder.store).map {
                    "\($0.count - 1) teams"
                })
        #expect(serve.stop() == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func aTapAddsAWinAndUndoTakesItBack(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home")
        let scorerLink = try #require(serve.scorerLink)
        let browser = try WebDriver()
        try browser.open(scorerLink)
        try #require(try browser.wait { try PageRows.read(browser).ready })
        #expect(
            try browser.wait {
                try browser.run("return document.getElementById('scoring-note').textContent;") as? String
                    == "Tap a team to add a win."
            })
        // The token left the address bar (and so any screenshot or shared tab).
        #expect(try browser.run("return location.href;") as? String == serve.viewerLink)
        let japan = try #require(try PageRows.read(browser).row(named: "Japan"))
        try browser.click(browser.element("li.team[data-id='\(japan.id)'] button.tap"))
        #expect(try browser.wait { try serve.wins()["Japan"] == 1 })
        #expect(try browser.wait { try PageRows.read(browser).row(named: "Japan")?.wins == 1 })
        try browser.click(browser.element("#undo"))
        #expect(try browser.wait { try serve.wins()["Japan"] == 0 })
        #expect(try browser.wait { try PageRows.read(browser).row(named: "Japan")?.wins == 0 })
        #expect(try serve.wins().values.reduce(0, +) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func theViewerLinkCannotScore(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home")
        let browser = try WebDriver()
        try browser.open(serve.viewerLink)
        try #require(try browser.wait { try PageRows.read(browser).ready })
        let japan = try #require(try PageRows.read(browser).row(named: "Japan"))
        try browser.click(browser.element("li.team[data-id='\(japan.id)']"))
        #expect(try browser.run("return document.getElementById('scoring').hidden;") as? Bool == true)
        // Nothing to wait for: a tap that did nothing. Then the requests a page could make.
        let url = serve.base + "/teams/\(japan.id)/wins"
        let key = ["Idempotency-Key": UUID().uuidString]
        #expect(try HTTPClient.request("POST", url, headers: key).status == 401)
        let wrongToken = key.merging(["Authorization": "Bearer nope"]) { $1 }
        #expect(try HTTPClient.request("POST", url, headers: wrongToken).status == 403)
        #expect(try HTTPClient.request("GET", serve.base + "/scorer").status == 401)
        #expect(try serve.wins().values.reduce(0, +) == 0)
        #expect(try PageRows.read(browser).row(named: "Japan")?.wins == 0)
    }

    @Test func aNameWithMarkupIsShownAsText() throws {
        let store = try StoreKind.sqlite.makeStore()
        let markup = "<img src=x onerror=\"window.owned=1\">"
        #expect(try worldcup(["add", "--name", markup, "--zone", "Internets"], db: store.db).status == 0)
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home")
        let browser = try WebDriver()
        try browser.open(serve.viewerLink)
        try #require(try browser.wait { try PageRows.read(browser).ready })
        #expect(try PageRows.read(browser).row(named: markup) != nil)
        // Added while the page is open, it comes through the event stream.
        let later = "<script>window.owned=2</script><b>bold</b>"
        #expect(try worldcup(["add", "--name", later, "--zone", "Internets"], db: store.db).status == 0)
        #expect(try browser.wait { try PageRows.read(browser).row(named: later) != nil })
        let markupNodes = "return document.querySelectorAll('#standings img, #standings script, #standings b').length;"
        #expect(try browser.run(markupNodes) as? Int == 0)
        #expect(try browser.run("return window.owned === undefined;") as? Bool == true)
    }

    @Test(arguments: StoreKind.allCases)
    func standingsJSONIsExactlyListJSON(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let name = "Tab\there \u{1B}[31m"
        #expect(try worldcup(["add", "--name", name, "--zone", "Internets"], db: store.db).status == 0)
        #expect(try worldcup(["win", "Brazil", "--count", "3"], db: store.db).status == 0)
        let serve = try ServeProcess(db: store.db, home: store.folder.path + "/home")
        let reply = try HTTPClient.request("GET", serve.base + "/standings.json")
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "application/json; charset=utf-8")
        #expect(reply.body == Data(try worldcup(["list", "--json"], db: store.db).stdout.utf8))
    }
}

/// The README's pictures of the page come from a script; it must keep working. It pictures
/// each state (the standings; a tap low on the page, with Undo; the server away) on a phone
/// and on a TV, light and dark.
@Suite struct ServeScreenshotTests {
    static let pictures =
        ["phone", "phone-tapped", "phone-away"].flatMap { state in
            ["light", "dark"].map { ("\(state)-\($0)", 780, 1688) }
        }
        + ["tv", "tv-away"].flatMap { state in ["light", "dark"].map { ("\(state)-\($0)", 1920, 1080) } }

    @Test func theScriptPicturesEachStateOnAPhoneAndATVLightAndDark() throws {
        let output = TemporaryDirectory()
        let script = ServeProcess.packageRoot.appendingPathComponent("docs/serve-screenshots.sh").path
        // Through system(): the script starts a server and a browser of its own.
        let status = system(
            "'\(script)' '\(ServeProcess.binary)' '\(output.path)' </dev/null >'\(output.path)/log' 2>&1")
        let log = (try? String(contentsOfFile: output.path + "/log", encoding: .utf8)) ?? ""
        try #require(status == 0, "docs/serve-screenshots.sh failed (it needs chromium: make deps): \(log)")
        for (name, width, height) in Self.pictures {
            let png = try Data(contentsOf: URL(fileURLWithPath: output.path + "/\(name).png"))
            // The PNG signature, then the IHDR chunk's width and height (big-endian).
            try #require(png.count > 24 && png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            let size = { (offset: Int) in png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
            #expect(size(16) == width && size(20) == height, "\(name): \(size(16))×\(size(20))")
            #expect(png.count > 20_000, "\(name) is a picture, not a blank page")
        }
        for state in ["phone", "phone-tapped", "phone-away", "tv", "tv-away"] {
            let picture = { (theme: String) in
                try Data(contentsOf: URL(fileURLWithPath: output.path + "/\(state)-\(theme).png"))
            }
            #expect(try picture("light") != picture("dark"), "\(state): dark is not light")
        }
    }
}
