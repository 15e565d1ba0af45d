import WorldCupModel

/// The page at `/`: the standings grouped by zone in the terminal's order, each row keyed by
/// its team's id, rendered on the server so that it reads as a snapshot without JavaScript.
/// Its script (`/app.js`) then keeps it live from `/events`. Its zones and rows are made from
/// `Page/section.html` and `Page/row.html`, which the page also holds as the templates the
/// script makes its zones and rows from: their markup is written once.
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

            """
        html += templates + "</head>\n"
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
        for section in rows.sections { zone(section, into: &html) }
        // Scoring's bar comes last: it sticks to the bottom of the screen.
        html +=
            "</main>\n<p id=\"more\"></p>\n"
            + "<aside id=\"scoring\" aria-label=\"Scoring\" tabindex=\"-1\" hidden>"
            + "<p id=\"scoring-note\" role=\"status\"></p>"
            + "<button id=\"undo\" type=\"button\" hidden></button></aside>\n</body>\n</html>\n"
        return html
    }

    /// The slots of `Page/section.html`: the zone's name, its count of teams, its rows.
    enum SectionSlot: String {
        case zone, count, rows
    }

    /// The slots of `Page/row.html`: the team's id, its rank, the leader's mark and its role,
    /// the name and the wins.
    enum RowSlot: String {
        case id, rank, leadRole = "lead-role", lead, name, wins
    }

    static let sectionTemplate = PageTemplate<SectionSlot>(PackageResources.section_html)
    static let rowTemplate = PageTemplate<RowSlot>(PackageResources.row_html)

    /// The templates the script clones for the zones and rows it adds, in the head (the script
    /// reads the standings' children as zones).
    private static let templates =
        "<template id=\"section-template\">" + sectionTemplate.empty + "</template>\n"
        + "<template id=\"row-template\">" + rowTemplate.empty + "</template>\n"

    /// A zone's section: its name, its count of teams and its first rows.
    static func zone(_ section: (name: String, count: Int, teams: [Team]), into html: inout String) {
        sectionTemplate.render(into: &html) { slot, html in
            switch slot {
            case .zone: html += escaped(section.name)
            case .count: html += teams(section.count)
            case .rows:
                for (index, team) in section.teams.enumerated() {
                    // The rows are the zone's first ones, in order: the teams above are all here.
                    let rank = SharedRank.rank(ofWins: team.wins, amongDescending: index) { section.teams[$0].wins }
                    row(team, rank: rank, into: &html)
                }
            }
        }
    }

    /// A team's row: its rank (shared by teams with equal wins), the leader's ★ with its words
    /// for a screen reader as the script's `showMarks` sets them, the name and the wins. The
    /// movement column stays empty: the script marks teams as they move.
    static func row(_ team: Team, rank: Int, into html: inout String) {
        rowTemplate.render(into: &html) { slot, html in
            switch slot {
            case .id: html += String(team.id ?? 0)
            case .rank: html += String(rank)
            case .leadRole: if rank == 1 { html += " role=\"img\" aria-label=\"leader\"" }
            case .lead: if rank == 1 { html += "★" }
            case .name: html += escaped(team.teamName)
            case .wins: html += String(team.wins)
            }
        }
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
