import WorldCupModel

/// The page at `/`: the standings grouped by zone in the terminal's order, each row keyed by
/// its team's id, rendered on the server so that it reads as a snapshot without JavaScript.
/// Its script (`/app.js`) then keeps it live from `/events`.
///
/// Every text from the store is escaped here (the script sets `textContent`): a name is text,
/// never markup.
enum StandingsPage {
    /// Rows rendered on the server: more than any screen shows; the script renders the rest as
    /// the page scrolls.
    static let renderedRows = 300

    static func html(_ rows: StandingsFollower.FirstRows, tvMode: Bool) -> String {
        var html = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <meta name="referrer" content="no-referrer">
            <title>World Cup standings</title>
            <link rel="stylesheet" href="/app.css">
            <script src="/app.js" defer></script>
            </head>

            """
        html += tvMode ? "<body class=\"tv\">\n" : "<body>\n"
        html +=
            "<a class=\"skip\" href=\"#standings\">Skip to the standings</a>"
            + "<a class=\"skip\" id=\"skip-to-scoring\" href=\"#scoring\" hidden>Skip to the last tap and Undo</a>\n"
        let zones = rows.sections.count
        html +=
            "<header><h1>World Cup</h1><p id=\"summary\">\(teams(rows.teamCount)) in \(zones) zone"
            + (zones == 1 ? "" : "s") + "</p><p id=\"last-change\"></p><p id=\"status\" role=\"status\"></p>"
            + "<p id=\"announcement\" class=\"spoken\" aria-live=\"polite\"></p></header>\n"
        html +=
            "<main id=\"standings\" tabindex=\"-1\" data-version=\"\(rows.version)\" data-rank-digits=\"\(rankDigits(rows))\">\n"
        for section in rows.sections {
            html +=
                "<section class=\"zone\"><h2><span class=\"zone-name\">" + escaped(section.name)
                + "</span> <span class=\"zone-count\">" + teams(section.count) + "</span></h2>\n<ol class=\"teams\">\n"
            for (index, team) in section.teams.enumerated() {
                // The rows are the zone's first ones, in order: the teams above are all here.
                let rank = SharedRank.rank(ofWins: team.wins, amongDescending: index) { section.teams[$0].wins }
                html += row(team, rank: rank)
            }
            html += "</ol></section>\n"
        }
        // Scoring's bar comes last: it sticks to the bottom of the screen.
        html +=
            "</main>\n<p id=\"more\"></p>\n"
            + "<aside id=\"scoring\" aria-label=\"Scoring\" tabindex=\"-1\" hidden>"
            + "<p id=\"scoring-note\" role=\"status\"></p>"
            + "<button id=\"undo\" type=\"button\" hidden></button></aside>\n</body>\n</html>\n"
        return html
    }

    /// A team's row, as the script's `makeRow` and `showMarks` make it: its rank (shared by teams
    /// with equal wins), the leader's ★, the movement column (the script fills it in as teams
    /// move), the name and the wins.
    static func row(_ team: Team, rank: Int) -> String {
        let lead =
            rank == 1
            ? "<span class=\"lead\" role=\"img\" aria-label=\"leader\">★</span>" : "<span class=\"lead\"></span>"
        return "<li class=\"team\" data-id=\"\(team.id ?? 0)\"><span class=\"rank\">\(rank)</span>" + lead
            + "<span class=\"move\"></span><span class=\"name\">" + escaped(team.teamName)
            + "</span><span class=\"wins\">\(team.wins)</span></li>\n"
    }

    /// The digits of the longest rank on the page: the rank column's width.
    static func rankDigits(_ rows: StandingsFollower.FirstRows) -> Int {
        String(max(1, rows.sections.map(\.teams.count).max() ?? 1)).count
    }

    private static func teams(_ count: Int) -> String {
        count == 1 ? "1 team" : "\(count) teams"
    }

    /// Text as HTML text or attribute content: markup characters escaped, control characters
    /// shown as U+FFFD as on the terminal.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value): result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
