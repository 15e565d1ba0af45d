import Foundation
import TestSupport
import Testing

/// The rows and zones the server renders for the first paint and the ones the script makes as
/// the page scrolls are the same markup, in a real headless Chromium: a row or a zone shaped one
/// way on one side would look or read otherwise on the other (a missing column, a mark without
/// its words for a screen reader).
@Suite struct ServeRowMarkupTests {
    /// Each node's markup with what is the team's or the zone's own left out (its id, name,
    /// wins, count): elements, their attributes sorted, and the other texts (rank, marks). A
    /// zone's rows are left out of the zone's. `arguments[0]` is the page as the server sent it;
    /// the pairs are the server's node and the script's.
    static let shapes = """
        const served = new DOMParser().parseFromString(arguments[0], 'text/html');
        const own = new Set(['name', 'wins', 'zone-name', 'zone-count']);
        const shape = (node, skip) => {
            if (node.nodeType === Node.TEXT_NODE) return own.has(node.parentElement.className) ? '…' : node.data.trim();
            if (node.nodeType !== Node.ELEMENT_NODE || (skip && node.matches(skip))) return '';
            const attributes = Array.from(node.attributes, (a) => ` ${a.name}="${a.name === 'data-id' ? '#' : a.value}"`);
            const children = Array.from(node.childNodes, (child) => shape(child, skip)).join('');
            return `<${node.localName}${attributes.sort().join('')}>${children}</${node.localName}>`;
        };
        const zone = (page, name) => Array.from(page.querySelectorAll('#standings section.zone'))
            .find((section) => section.querySelector('.zone-name').textContent === name);
        const rows = (zone) => zone.querySelectorAll('li.team');
        const servedAfrica = zone(served, 'Africa');
        const [africa, asia, oceania] = ['Africa', 'Asia', 'Oceania'].map((name) => zone(document, name));
        return {
            servedRows: Array.from(served.querySelectorAll('#standings section.zone'), (zone) => rows(zone).length),
            pairs: [
                ['a zone', shape(servedAfrica, 'li.team'), shape(oceania, 'li.team')],
                ["a zone's leader", shape(rows(servedAfrica)[0]), shape(rows(asia)[0])],
                ['a row behind the leader', shape(rows(servedAfrica)[1]), shape(rows(asia)[1])],
                ['a row of a zone the server began', shape(rows(servedAfrica)[1]), shape(rows(africa)[350])],
            ],
        };
        """

    /// Africa, first of the zones, holds more teams than the server renders: the rest of its
    /// rows and every other zone's are the script's, and so is Oceania, a zone that comes while
    /// the page is open. Algeria and Japan lead their zones with a win.
    @Test func theScriptMakesRowsAndZonesAsTheServerDoes() throws {
        let folder = TemporaryDirectory()
        for team in ["Algeria", "Japan"] {
            #expect(try worldcup(["win", team], db: folder.store).status == 0)
        }
        let clubs = 400
        let sql = """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(clubs))
            INSERT INTO team (teamName, qualifyingZone, wins) SELECT 'Club ' || i, 'Africa', 0 FROM n;
            """
        let run = try ProgramRun("/usr/bin/sqlite3", [folder.store, sql])
        try #require(run.status == 0, "\(run.stderr)")
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let html = try HTTPClient.request("GET", serve.viewerLink)
        try #require(html.status == 200)
        let browser = try WebDriver()
        try browser.open(serve.viewerLink)
        try #require(try browser.wait { try PageRows.read(browser).ready })
        try browser.run("document.getElementById('more').scrollIntoView();")
        let allRows = "return document.querySelectorAll('#standings li.team').length;"
        try #require(try browser.wait { try browser.run(allRows) as? Int == 32 + clubs })
        #expect(try worldcup(["add", "--name", "Fiji", "--zone", "Oceania"], db: folder.store).status == 0)
        try #require(try browser.wait { try PageRows.read(browser).row(named: "Fiji") != nil })
        let shapes = try browser.run(Self.shapes, [html.text]) as? [String: Any] ?? [:]
        #expect(shapes["servedRows"] as? [Int] == [300, 0, 0, 0, 0], "the server rendered Africa's first rows only")
        let pairs = shapes["pairs"] as? [[String]] ?? []
        #expect(pairs.count == 4)
        for pair in pairs {
            #expect(pair[1].contains("name\">…<"), "\(pair[0]): the server's \(pair[1])")
            #expect(pair[1] == pair[2], "\(pair[0]): the server's \(pair[1]), the script's \(pair[2])")
        }
        #expect(serve.stop() == 0)
    }
}
