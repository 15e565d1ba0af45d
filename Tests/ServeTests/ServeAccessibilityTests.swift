import Foundation
import TestSupport
import Testing

/// The page for people who do not see it, or see it differently: axe-core 4.x's WCAG 2.2 A and
/// AA rules find nothing on the viewer's and the scorer's page, on a phone and a TV, light and
/// dark; a scorer's rows are buttons named for the win they add, at least 44 × 44 px, after a
/// skip link; others' wins are said in a polite live region, at most one sentence every two
/// seconds.
@Suite struct ServeAccessibilityTests {
    static let axePath = ServeProcess.packageRoot.appendingPathComponent(".build-tools/axe/axe.min.js").path

    /// axe-core's WCAG 2.0, 2.1 and 2.2 A and AA rules on the page as it is: each violation as
    /// "rule: the first elements it names".
    static func violations(_ browser: WebDriver) throws -> [String] {
        let axe = try String(contentsOfFile: axePath, encoding: .utf8)
        try browser.run(
            axe + """

                window.axeViolations = null;
                axe.run(document, {
                    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
                }).then(
                    (result) => {
                        window.axeViolations = result.violations.map((violation) => violation.id + ': '
                            + violation.nodes.slice(0, 3).map((node) => node.target.join(' ')).join(', '));
                    },
                    (error) => { window.axeViolations = ['axe failed: ' + error]; });
                return true;
                """)
        var found: [String]?
        _ = try browser.wait(timeout: 60) {
            found = try browser.run("return window.axeViolations;") as? [String]
            return found != nil
        }
        return try #require(found, "axe-core gave no answer within 60 s")
    }

    @Test func axeFindsNothingOnTheViewersAndTheScorersPagePhoneAndTVLightAndDark() throws {
        try #require(
            FileManager.default.fileExists(atPath: Self.axePath), "\(Self.axePath) is missing: make deps downloads it")
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let scorer = try #require(serve.scorerLink), token = try #require(serve.token)
        let pages = [
            ("viewer, phone", serve.viewerLink, 390, 844), ("scorer, phone", scorer, 390, 844),
            ("viewer, TV", serve.viewerLink + "?tv", 1920, 1080),
            ("scorer, TV", serve.viewerLink + "?tv#scorer=" + token, 1920, 1080),
        ]
        var found: [String] = []
        for (page, link, width, height) in pages {
            for scheme in ["light", "dark"] {
                let browser = try WebDriver(width: width, height: height)
                try browser.emulate(colorScheme: scheme)
                try browser.open(link)
                try #require(try browser.wait { try PageRows.read(browser).ready }, "\(page) \(scheme) loads")
                if page == "scorer, phone" {
                    // With a tap made: the tapped row's mark and Undo are on the page too.
                    try browser.click(browser.element("li.team button.tap"))
                    try #require(
                        try browser.wait {
                            try browser.run("return !document.getElementById('undo').hidden;") as? Bool == true
                        })
                }
                found += try Self.violations(browser).map { "\(page), \(scheme): \($0)" }
            }
        }
        #expect(found.isEmpty, "\(found)")
        #expect(serve.stop() == 0)
    }

    @Test func aScorersRowsAreButtonsNamedForTheirWinAndBigEnoughForAFinger() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let browser = try WebDriver(width: 390, height: 844)
        try browser.open(try #require(serve.scorerLink))
        try #require(
            try browser.wait { try browser.run("return document.querySelectorAll('button.tap').length;") as? Int == 32 }
        )
        let buttons =
            try browser.run(
                """
                return Array.from(document.querySelectorAll('li.team button.tap'), (button) => {
                    const box = button.getBoundingClientRect();
                    return [button.getAttribute('aria-label'), box.width, box.height];
                });
                """) as? [[Any]] ?? []
        // The oracle: every team's name and wins as the server holds them.
        let expected = try serve.wins().map {
            "Add a win to \($0.key), \($0.value == 1 ? "1 win" : "\($0.value) wins")"
        }
        #expect(Set(buttons.compactMap { $0.first as? String }) == Set(expected))
        let small = buttons.filter { ($0[1] as? Double ?? 0) < 44 || ($0[2] as? Double ?? 0) < 44 }
        #expect(small.isEmpty, "buttons under 44 × 44 px: \(small.prefix(3))")

        // The first Tab reaches the skip link, which goes past the header to the standings.
        try browser.press([WebDriver.Key.tab])
        #expect(try browser.run("return document.activeElement.textContent;") as? String == "Skip to the standings")
        try browser.press([WebDriver.Key.tab])
        #expect(
            try browser.run("return document.activeElement.textContent;") as? String == "Skip to the last tap and Undo")

        // A tap: its button's name follows the new wins; Undo is as big as a row.
        try browser.click(browser.element("li.team button.tap"))
        #expect(
            try browser.wait {
                (try browser.run("return document.querySelector('li.team button.tap').getAttribute('aria-label');")
                    as? String)?.hasSuffix(", 1 win") == true
            })
        let undo =
            try browser.run(
                "const b = document.getElementById('undo').getBoundingClientRect(); return [b.width, b.height];")
            as? [Double] ?? []
        #expect(undo.count == 2 && undo[0] >= 44 && undo[1] >= 44, "Undo is \(undo)")
        #expect(serve.stop() == 0)
    }

    @Test func othersWinsAreSaidPolitelyAtMostEveryTwoSeconds() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let browser = try WebDriver(width: 390, height: 844)
        try browser.open(serve.viewerLink)
        try #require(try browser.wait { try PageRows.read(browser).ready })
        let region =
            "const r = document.getElementById('announcement'); return [r.getAttribute('aria-live'), r.textContent];"
        #expect((try browser.run(region) as? [String])?.first == "polite")
        func said() throws -> String { (try browser.run(region) as? [String])?.last ?? "" }

        #expect(try worldcup(["win", "Brazil"], db: folder.store).status == 0)
        // Every team of South America had no win: all shared 1st, as Brazil still is.
        let brazil = "Brazil +1 to 1 win, still 1st in South America"
        #expect(try browser.wait { try said() == brazil }, "\((try? said()) ?? "")")
        // What the region said from now on, and when.
        try browser.run(
            """
            const region = document.getElementById('announcement');
            window.said = [];
            new MutationObserver(() => window.said.push([performance.now(), region.textContent]))
                .observe(region, { childList: true, characterData: true, subtree: true });
            """)
        #expect(try worldcup(["win", "Japan", "--count", "2"], db: folder.store).status == 0)
        #expect(try worldcup(["win", "Iran"], db: folder.store).status == 0)
        // Japan on 2 wins leads Asia; Iran's win leaves it 2nd, shared by every team without one
        // before it. Said together, unless Japan's came two seconds after Brazil's or later.
        _ = try browser.wait(timeout: 10) { try said().hasPrefix("Iran +1") }
        let records = try browser.run("return window.said;") as? [[Any]] ?? []
        let texts = records.compactMap { $0.last as? String }
        let times = records.compactMap { $0.first as? Double }
        let japan = "Japan +2 to 2 wins, still 1st in Asia"
        let iran = "Iran +1 to 1 win, still 2nd in Asia"
        #expect(texts == [iran + " (and 1 more change)"] || texts == [japan, iran], "\(texts)")
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 1_900 }, "two seconds apart: \(times)")
        #expect(serve.stop() == 0)
    }
}
