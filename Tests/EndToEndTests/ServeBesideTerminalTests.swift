import Foundation
import TestSupport
import Testing

/// `worldcup serve` in a browser beside the terminal scoreboard in tmux, on one store: a tap
/// shows on the terminal, and Enter on the terminal shows on the page.
@Suite struct ServeBesideTerminalTests {
    @Test func aTapShowsOnTheTerminalAndEnterShowsOnThePage() throws {
        let directory = TemporaryDirectory()
        let serve = try ServeProcess(db: directory.store, home: directory.path + "/home")
        let terminal = try Tmux(command: directory.scoreboard)
        try #require(terminal.waitFor("Africa"))
        let browser = try WebDriver()
        try browser.open(try #require(serve.scorerLink))
        let ready = """
            return !!(window.worldcup && window.worldcup.ready) && document.body.classList.contains('scoring');
            """
        try #require(try browser.wait { try browser.run(ready) as? Bool == true })
        let japan = try #require(
            try browser.run(
                """
                return Array.from(document.querySelectorAll('li.team'))
                    .find((li) => li.querySelector('.name').textContent === 'Japan').dataset.id;
                """)
                as? String)
        try browser.click(browser.element("li.team[data-id='\(japan)'] button.tap"))
        #expect(terminal.waitUntil(timeout: 20) { terminal.wins(of: "Japan") == 1 })

        #expect(try terminal.moveCursor(to: "Brazil"))
        try terminal.press("Enter")
        let brazilWins = """
            const li = Array.from(document.querySelectorAll('li.team'))
                .find((li) => li.querySelector('.name').textContent === 'Brazil');
            return Number(li.querySelector('.wins').textContent);
            """
        #expect(try browser.wait { try browser.run(brazilWins) as? Int == 1 })
        #expect(try serve.wins()["Brazil"] == 1 && serve.wins()["Japan"] == 1)
        #expect(serve.stop() == 0)
    }
}
