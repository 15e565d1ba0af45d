import Foundation
import GRDB
import TestSupport

/// `worldcup serve` (the release binary) with a real headless Chromium: a win committed by
/// another process, and a tap on the page, to the page's DOM updated, from the timestamps the
/// page reports (its clock and this process's are the machine's wall clock); and the page's
/// first paint.
struct ServeRuns {
    struct Result {
        var teams: Int
        /// First contentful paint of `/`, from navigation start (ms), over several loads.
        var firstPaint: Percentiles
        /// From navigation start until the page held its snapshot (the rows serve held then), ms.
        var snapshotHeld: Percentiles
        /// A win committed by another process (as `worldcup win` commits it) → DOM updated.
        var commitToDOM: Percentiles
        /// A tap on the page → DOM updated (the request, the commit, the event).
        var tapToDOM: Percentiles
    }

    let worldcup: String
    let store: String
    let teams: Int
    let wins: Int
    let folder: String

    func run() throws -> Result {
        setenv("WORLDCUP_BIN", worldcup, 1)
        // Its taps come one after another as soon as the last reached the page, faster than the
        // default bound of a phone's taps: the run measures latency, not that bound.
        let serve = try ServeProcess(
            db: store, home: folder + "/serve-home-\(teams)", arguments: ["--taps-per-second", "1000"])
        defer { serve.stop() }
        let browser = try WebDriver()
        var paints: [Double] = [], loads: [Double] = []
        for _ in 0..<5 {
            try browser.open(serve.viewerLink)
            let ready = "return !!(window.worldcup && window.worldcup.ready);"
            guard try browser.wait(timeout: 300, { try browser.run(ready) as? Bool == true })
            else { throw WebDriver.Failure(description: "the page never held every team") }
            // A small page can be ready before Chromium has recorded its first paint.
            let painted = "return performance.getEntriesByName('first-contentful-paint').length > 0;"
            guard try browser.wait(timeout: 5, { try browser.run(painted) as? Bool == true })
            else { throw WebDriver.Failure(description: "the page recorded no first contentful paint") }
            let times =
                try browser.run(
                    """
                    const paint = performance.getEntriesByName('first-contentful-paint')[0];
                    return [paint.startTime, window.worldcup.readyAt - performance.timeOrigin];
                    """) as? [Double] ?? []
            paints.append(times.first ?? .nan)
            loads.append(times.last ?? .nan)
        }
        // Wins on teams in the first screenful, each committed by this process through SQLite.
        let database = try DatabaseQueue(path: store)
        let firstIDs = """
            return Array.from(document.querySelectorAll('li.team')).slice(0, 20).map((li) => Number(li.dataset.id));
            """
        let ids =
            try browser.run(firstIDs)
            as? [Int] ?? []
        var commits: [Double] = []
        for index in 0..<wins {
            let id = ids[index % ids.count]
            let before = try appliedCount(browser)
            try database.write { db in
                try db.execute(sql: "UPDATE team SET wins = wins + 1 WHERE id = ?", arguments: [id])
            }
            let committed = Date().timeIntervalSince1970 * 1000
            commits.append(try appliedAt(browser, after: before, id: id) - committed)
            usleep(20_000)
        }
        let scorer = try WebDriver()
        try scorer.open(try serve.scorerLink ?? { throw WebDriver.Failure(description: "no scorer link") }())
        let scoring = "return document.body.classList.contains('scoring') && window.worldcup.ready;"
        guard try scorer.wait(timeout: 300, { try scorer.run(scoring) as? Bool == true })
        else { throw WebDriver.Failure(description: "the scorer page never got ready") }
        var taps: [Double] = []
        for index in 0..<wins {
            let id = ids[index % ids.count]
            let before = try appliedCount(scorer)
            // In the middle of the window: the page's header stays at the top and would take a
            // click on a row under it.
            _ = try scorer.run(
                "document.querySelector(\"li.team[data-id='\(id)']\").scrollIntoView({block: 'center'});")
            try scorer.click(scorer.element("li.team[data-id='\(id)']"))
            let applied = try appliedAt(scorer, after: before, id: id)
            let lastTap = "return window.worldcup.taps[window.worldcup.taps.length - 1].at;"
            let tapped = try scorer.run(lastTap) as? Double ?? .nan
            taps.append(applied - tapped)
            usleep(20_000)
        }
        return Result(
            teams: teams, firstPaint: Percentiles(paints), snapshotHeld: Percentiles(loads),
            commitToDOM: Percentiles(commits), tapToDOM: Percentiles(taps))
    }

    private func appliedCount(_ browser: WebDriver) throws -> Int {
        try browser.run("return window.worldcup.appliedCount;") as? Int ?? 0
    }

    /// When the page applied the first change set after the `count`th that touched `id`.
    private func appliedAt(_ browser: WebDriver, after count: Int, id: Int) throws -> Double {
        var at: Double?
        _ = try browser.wait(timeout: 60) {
            at =
                try browser.run(
                    """
                    const report = window.worldcup;
                    const fresh = report.applied.slice(report.applied.length - (report.appliedCount - arguments[0]));
                    const hit = fresh.find((entry) => entry.ids.includes(arguments[1]));
                    return hit ? hit.at : null;
                    """, [count, id]) as? Double
            return at != nil
        }
        guard let at else { throw WebDriver.Failure(description: "the page never showed the win of team \(id)") }
        return at
    }
}
