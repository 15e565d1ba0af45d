import Foundation
import TestSupport
import Testing

/// How the page is laid out, read from the boxes Chromium gives its elements: on the TV
/// (`?tv`, 1920×1080) and on a phone (390×844), with the evening's history of the README's
/// pictures.
@Suite(.serialized) struct ServePageLookTests {
    /// What the checks read of the page: each row's box and its name's, each heading's, the
    /// sizes of the type.
    static let measure = """
        const box = (node) => { const r = node.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
        const size = (node) => parseFloat(getComputedStyle(node).fontSize);
        const rows = Array.from(document.querySelectorAll('#standings li.team'));
        return {
            width: innerWidth, height: innerHeight,
            scrollWidth: document.documentElement.scrollWidth, scrollHeight: document.documentElement.scrollHeight,
            rows: rows.map((li) => ({ name: li.querySelector('.name').textContent, box: box(li),
                nameBox: box(li.querySelector('.name')) })),
            headings: Array.from(document.querySelectorAll('#standings h2')).map(box),
            rowSize: size(rows[0]), nameSize: size(rows[0].querySelector('.name')),
            headingSize: size(document.querySelector('#standings h2')),
            summarySize: size(document.getElementById('summary')),
        };
        """

    struct Look {
        var width: Double, height: Double, scrollWidth: Double, scrollHeight: Double
        var rows: [(name: String, box: [Double], nameBox: [Double])]
        var headings: [[Double]]
        var rowSize: Double, nameSize: Double, headingSize: Double, summarySize: Double

        init(_ browser: WebDriver) throws {
            let value = try browser.run(ServePageLookTests.measure) as? [String: Any] ?? [:]
            let number = { (key: String) in (value[key] as? NSNumber)?.doubleValue ?? -1 }
            let boxes = { (any: Any?) in (any as? [NSNumber] ?? []).map(\.doubleValue) }
            width = number("width")
            height = number("height")
            scrollWidth = number("scrollWidth")
            scrollHeight = number("scrollHeight")
            rows = (value["rows"] as? [[String: Any]] ?? []).map {
                ($0["name"] as? String ?? "", boxes($0["box"]), boxes($0["nameBox"]))
            }
            headings = (value["headings"] as? [Any] ?? []).map(boxes)
            rowSize = number("rowSize")
            nameSize = number("nameSize")
            headingSize = number("headingSize")
            summarySize = number("summarySize")
        }

        /// The rows by column (their left edge).
        var columns: [Double: [(name: String, box: [Double], nameBox: [Double])]] {
            Dictionary(grouping: rows) { ($0.box[0]).rounded() }
        }
    }

    /// A store with the README pictures' evening of wins (and `clubs` more teams in Europe),
    /// served.
    static func evening(clubs: Int = 0) throws -> (TemporaryDirectory, ServeProcess) {
        let folder = TemporaryDirectory()
        for (team, count) in [
            ("Brazil", 5), ("Germany", 7), ("Netherlands", 5), ("Argentina", 6), ("Colombia", 4),
            ("Costa Rica", 3), ("Algeria", 2), ("Belgium", 4), ("France", 3),
        ] {
            #expect(try worldcup(["win", team, "--count", "\(count)"], db: folder.store).status == 0)
        }
        if clubs > 0 {
            let sql = """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(clubs))
                INSERT INTO team (teamName, qualifyingZone, wins) SELECT 'Club ' || i, 'Europe', 0 FROM n;
                """
            let run = try ProgramRun("/usr/bin/sqlite3", [folder.store, sql])
            try #require(run.status == 0, "\(run.stderr)")
        }
        return (folder, try ServeProcess(db: folder.store, home: folder.path + "/home"))
    }

    /// Every row's name starts the same distance from its row's left edge, "10 Portugal" as
    /// "9 Netherlands".
    static func expectNamesInLine(_ look: Look, _ comment: String) {
        let offsets = Dictionary(grouping: look.rows) { ($0.nameBox[0] - $0.box[0]).rounded() }
        #expect(
            offsets.count == 1,
            "\(comment): names start at \(offsets.mapValues { $0.map(\.name).prefix(3) }) from their rows' left")
    }

    /// The evening on a browser of this size, once its standings are live; and how it looks.
    static func open(
        _ link: (ServeProcess) -> String?, width: Int, height: Int, clubs: Int = 0
    ) throws -> (ServeProcess, WebDriver, Look, TemporaryDirectory) {
        let (folder, serve) = try evening(clubs: clubs)
        let browser = try WebDriver(width: width, height: height)
        try browser.open(try #require(link(serve)))
        try #require(try browser.wait { try PageRows.read(browser).ready })
        // The page settles (the TV fits its type to the screen) before it is measured.
        usleep(500_000)
        let look = try Look(browser)
        try #require(
            look.rows.count == 32 + clubs && look.width == Double(width), "\(look.rows.count) rows, \(look.width) wide")
        return (serve, browser, look, folder)
    }

    static func tv() throws -> (ServeProcess, WebDriver, Look, TemporaryDirectory) {
        try open({ $0.viewerLink + "?tv" }, width: 1920, height: 1080)
    }

    /// Read from across the room, a zone's heading and the summary are no smaller than a row.
    @Test func theTVsHeadingsAndSummaryAreAsBigAsItsRows() throws {
        let (serve, _, look, _) = try Self.tv()
        #expect(look.headingSize >= look.rowSize, "zone headings \(look.headingSize) px, rows \(look.rowSize) px")
        #expect(look.summarySize >= look.rowSize, "the summary \(look.summarySize) px, rows \(look.rowSize) px")
        #expect(serve.stop() == 0)
    }

    /// On the phone the headings are no smaller than the rows either.
    @Test func thePhonesHeadingsAreAsBigAsItsRows() throws {
        let (serve, _, look, _) = try Self.open({ $0.scorerLink }, width: 390, height: 844)
        #expect(look.headingSize >= look.rowSize, "zone headings \(look.headingSize) px, rows \(look.rowSize) px")
        #expect(look.scrollWidth <= look.width, "no sideways scrolling: \(look.scrollWidth) px")
        #expect(serve.stop() == 0)
    }

    /// "10 Portugal" in line with "9 Netherlands", and "100 Club 87" with "99 Club 86": the
    /// rank column is as wide as the longest rank, on the TV and on a phone.
    @Test func everyNameStartsInLineHoweverManyDigitsItsRankHas() throws {
        for (name, width, height) in [("TV", 1920, 1080), ("phone", 390, 844)] {
            let (serve, _, look, _) = try Self.open(
                { name == "TV" ? $0.viewerLink + "?tv" : $0.scorerLink }, width: width, height: height, clubs: 100)
            Self.expectNamesInLine(look, name)
            #expect(serve.stop() == 0)
        }
    }

    /// The TV uses its screen: the zones across its width and down most of its height, none
    /// off it (a TV does not scroll), each column's first zone at the same height.
    @Test func theTVFillsItsScreenWithEveryColumnStartingAtOneHeight() throws {
        let (serve, _, look, _) = try Self.tv()
        let tops = Dictionary(grouping: look.headings) { $0[0].rounded() }.mapValues { $0.map { $0[1] }.min() ?? 0 }
        #expect(Set(tops.values.map { $0.rounded() }).count == 1, "each column's first heading's top: \(tops)")
        let right = look.rows.map { $0.box[2] }.max() ?? 0
        let bottom = look.rows.map { $0.box[3] }.max() ?? 0
        #expect(right >= 0.9 * look.width, "the rows reach \(right) of \(look.width) px across")
        #expect(bottom >= 0.8 * look.height, "the rows reach \(bottom) of \(look.height) px down")
        #expect(
            look.scrollHeight <= look.height && look.scrollWidth <= look.width,
            "all of it on the screen: \(look.scrollWidth)×\(look.scrollHeight)")
        print("serve TV: \(tops.count) columns, rows of \(look.rowSize) px, reaching \(right)×\(bottom)")
        #expect(serve.stop() == 0)
    }
}
