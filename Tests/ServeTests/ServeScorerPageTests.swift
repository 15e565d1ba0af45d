import Foundation
import TestSupport
import Testing

/// The scorer's page on a phone (390×844) in a real headless Chromium: scoring from the
/// keyboard, the Undo button within reach, feedback on the tapped row, and a server that goes
/// away and comes back.
@Suite(.serialized) struct ServeScorerPageTests {
    /// A scorer's page, open and ready to score.
    struct ScorerPage {
        let serve: ServeProcess
        let browser: WebDriver

        init(_ serve: ServeProcess, width: Int = 390, height: Int = 844) throws {
            self.serve = serve
            browser = try WebDriver(width: width, height: height)
            try browser.open(try #require(serve.scorerLink))
            try #require(try browser.wait { try PageRows.read(browser).ready })
            try #require(
                try browser.wait {
                    try browser.run("return document.body.classList.contains('scoring');") as? Bool == true
                })
        }

        /// What has the focus: `team NAME` for a row, else the element's tag and id.
        func focused() throws -> String {
            try browser.run(
                """
                const active = document.activeElement;
                if (!active) return 'nothing';
                const row = active.closest('li.team');
                if (row) return 'team ' + row.querySelector('.name').textContent;
                return active.tagName.toLowerCase() + (active.id ? '#' + active.id : '');
                """) as? String ?? "?"
        }

        func row(_ name: String) throws -> String {
            let id = try #require(try PageRows.read(browser).row(named: name)).id
            return try browser.element("li.team[data-id='\(id)'] button.tap")
        }

        func wins(_ name: String) throws -> Int? { try PageRows.read(browser).row(named: name)?.wins }

        func text(_ id: String) throws -> String {
            try browser.run("return document.getElementById(arguments[0]).textContent;", [id]) as? String ?? ""
        }

        /// The Undo button as the user sees it: shown, inside the viewport, and what a tap at
        /// its centre reaches (not a header drawn over it); else what is wrong.
        func undoProblem() throws -> String? {
            try browser.run(
                """
                const undo = document.getElementById('undo');
                if (undo.hidden || undo.closest('[hidden]')) return 'hidden';
                const box = undo.getBoundingClientRect();
                if (box.width === 0 || box.top < 0 || box.left < 0 || box.bottom > innerHeight || box.right > innerWidth)
                    return `outside the viewport: ${box.left},${box.top}–${box.right},${box.bottom} in ${innerWidth}×${innerHeight}`;
                const hit = document.elementFromPoint((box.left + box.right) / 2, (box.top + box.bottom) / 2);
                if (hit !== undo && !undo.contains(hit)) return 'covered by <' + (hit ? hit.tagName.toLowerCase() : 'nothing') + '>';
                return null;
                """) as? String
        }
    }

    /// Scorer link, Tab to Uruguay, Enter, Enter, Enter: each counts, and the focus stays on
    /// Uruguay's row as it moves up; Enter on Undo takes the last back and leaves the focus on
    /// the row it took the win from.
    @Test func theFocusStaysOnTheTeamWhereverItMoves() throws {
        let folder = TemporaryDirectory()
        #expect(try worldcup(["win", "Argentina"], db: folder.store).status == 0)
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let page = try ScorerPage(serve)
        var presses = 0
        while try page.focused() != "team Uruguay" && presses < 80 {
            try page.browser.press([WebDriver.Key.tab])
            presses += 1
        }
        try #require(try page.focused() == "team Uruguay", "Tab reaches Uruguay")
        for wins in 1...3 {
            try page.browser.press([WebDriver.Key.enter])
            #expect(try page.browser.wait { try serve.wins()["Uruguay"] == wins }, "Enter number \(wins) counts")
            #expect(try page.browser.wait { try page.wins("Uruguay") == wins })
            let focused = try page.focused()
            #expect(focused == "team Uruguay", "after Enter number \(wins)")
        }
        #expect(
            try page.browser.wait {
                try page.browser.run("return !document.getElementById('undo').hidden;") as? Bool == true
            })
        try page.browser.run("document.getElementById('undo').focus();")
        try page.browser.press([WebDriver.Key.enter])
        #expect(try page.browser.wait { try serve.wins()["Uruguay"] == 2 })
        #expect(try page.browser.wait { try page.wins("Uruguay") == 2 })
        let focused = try page.focused()
        #expect(focused == "team Uruguay", "after Enter on Undo")
        #expect(serve.stop() == 0)
    }

    /// A tap low on the page: Undo is on the screen where the thumb is, not scrolled away or
    /// under the header; after a reload the tab still has it, and it takes that win back.
    @Test func undoIsInReachAfterATapLowOnThePageAndAfterAReload() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let page = try ScorerPage(serve)
        let last = try #require(try PageRows.read(page.browser).sections.last?.rows.last)
        try page.browser.run(
            "document.querySelector(`li.team[data-id='${arguments[0]}']`).scrollIntoView({block: 'center'});",
            [last.id])
        try page.browser.click(try page.row(last.name))
        #expect(try page.browser.wait { try serve.wins()[last.name] == 1 })
        #expect(try page.browser.wait { try page.wins(last.name) == 1 })
        let scrolled = try page.browser.run("return window.scrollY;") as? Double ?? 0
        #expect(scrolled > 400, "the tap was low on a long page (scrolled \(scrolled) px)")
        _ = try page.browser.wait(timeout: 5) { try page.undoProblem() == nil }
        let afterTap = try page.undoProblem()
        #expect(afterTap == nil, "Undo after the tap: \(afterTap ?? "")")

        try page.browser.reload()
        try #require(try page.browser.wait { try PageRows.read(page.browser).ready })
        _ = try page.browser.wait { try page.undoProblem() == nil }
        let afterReload = try page.undoProblem()
        #expect(afterReload == nil, "Undo after a reload: \(afterReload ?? "")")
        #expect(try page.text("undo").contains(last.name))
        try page.browser.click(page.browser.element("#undo"))
        #expect(try page.browser.wait { try serve.wins()[last.name] == 0 })
        #expect(try page.browser.wait { try page.undoProblem() == "hidden" })
        #expect(serve.stop() == 0)
    }

    /// A tap shows on the row it hit, right away, and stays marked as the win Undo takes back.
    @Test func theTappedRowShowsTheTap() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let page = try ScorerPage(serve)
        let looks = """
            const look = (name) => {
                const row = Array.from(document.querySelectorAll('li.team'))
                    .find((li) => li.querySelector('.name').textContent === name);
                const style = getComputedStyle(row);
                return [style.backgroundColor, style.boxShadow, style.outlineStyle, style.borderLeftWidth].join(' | ');
            };
            return [look(arguments[0]), look(arguments[1])];
            """
        let before = try page.browser.run(looks, ["Japan", "Iran"]) as? [String] ?? []
        try #require(before.count == 2 && before[0] == before[1], "Japan and Iran look alike before: \(before)")
        try page.browser.click(try page.row("Japan"))
        #expect(try page.browser.wait { try serve.wins()["Japan"] == 1 })
        #expect(try page.browser.wait { try page.wins("Japan") == 1 })
        // Past any flash: the row is still marked as the last win (what Undo takes back).
        usleep(1_500_000)
        let after = try page.browser.run(looks, ["Japan", "Iran"]) as? [String] ?? []
        #expect(after.count == 2 && after[0] != after[1], "Japan looks tapped: \(after)")
        try page.browser.click(page.browser.element("#undo"))
        #expect(try page.browser.wait { try serve.wins()["Japan"] == 0 })
        #expect(
            try page.browser.wait {
                let now = try page.browser.run(looks, ["Japan", "Iran"]) as? [String] ?? []
                return now.count == 2 && now[0] == now[1]
            }, "after Undo Japan looks like any row")
        #expect(serve.stop() == 0)
    }

    /// While the server is away the page says so where it shows (not "Tap a team" with a
    /// small grey note), and it says it is back when it is.
    @Test func aServerThatIsAwayIsSaidPlainly() throws {
        let folder = TemporaryDirectory()
        let home = folder.path + "/home"
        let listen = "127.0.0.1:\(HTTPClient.freePort())"
        var serve = try ServeProcess(db: folder.store, home: home, listen: listen)
        let page = try ScorerPage(serve)
        #expect(try page.text("scoring-note") == "Tap a team to add a win.")
        #expect(serve.stop() == 0)
        #expect(try page.browser.wait { try !page.text("status").isEmpty })
        let away =
            try page.browser.run(
                """
                const status = getComputedStyle(document.getElementById('status'));
                const row = getComputedStyle(document.querySelector('li.team'));
                const page = getComputedStyle(document.body);
                return {
                    status: document.getElementById('status').textContent,
                    note: document.getElementById('scoring-note').textContent,
                    statusSize: parseFloat(status.fontSize), rowSize: parseFloat(row.fontSize),
                    statusWeight: Number(status.fontWeight),
                    statusBackground: status.backgroundColor, pageBackground: page.backgroundColor,
                };
                """) as? [String: Any] ?? [:]
        let note = away["note"] as? String ?? ""
        #expect(note != "Tap a team to add a win.", "the note while away: \(note)")
        #expect(note.lowercased().contains("server"), "the note says what is wrong: \(note)")
        let statusSize = away["statusSize"] as? Double ?? 0, rowSize = away["rowSize"] as? Double ?? 0
        #expect(statusSize >= rowSize, "the status is as big as a row: \(away)")
        #expect((away["statusWeight"] as? Int ?? 0) >= 600, "the status is bold: \(away)")
        #expect(
            away["statusBackground"] as? String != "rgba(0, 0, 0, 0)"
                && away["statusBackground"] as? String != away["pageBackground"] as? String,
            "the status stands out: \(away)")

        serve = try ServeProcess(db: folder.store, home: home, listen: listen)
        #expect(try page.browser.wait(timeout: 30) { try page.text("status").isEmpty })
        #expect(try page.text("scoring-note") == "Tap a team to add a win.")
        #expect(serve.stop() == 0)
    }

    /// Tabbing down the page and back up, the row with the focus is never under the sticky
    /// header or the bar at the bottom: a tap at its middle reaches it.
    @Test func theRowTheKeyboardIsOnIsNeverUnderTheHeaderOrTheBar() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let page = try ScorerPage(serve)
        let hidden = """
            const row = document.activeElement && document.activeElement.closest('li.team');
            if (!row) return null;
            const box = row.getBoundingClientRect();
            const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
            return row.contains(hit) ? null : row.querySelector('.name').textContent + ' under <'
                + (hit ? hit.tagName.toLowerCase() + (hit.id ? '#' + hit.id : '') : 'nothing') + '>';
            """
        var covered: [String] = []
        for key in Array(repeating: WebDriver.Key.tab, count: 32) + Array(repeating: WebDriver.Key.shiftTab, count: 31)
        {
            try page.browser.press([key])
            if let problem = try page.browser.run(hidden) as? String { covered.append(problem) }
        }
        #expect(covered.isEmpty, "\(covered.count) of 63 focused rows covered, such as \(covered.prefix(3))")
        #expect(serve.stop() == 0)
    }
}
