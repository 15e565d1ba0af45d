import TerminalUI
import WorldCupModel

/// Formats one team as a row — a ★ for a zone's leader, its rank in the zone (shared by teams
/// with equal wins), how it just moved (▲2, ▼1, NEW), a flag or short code, the name, the wins
/// at the window's right edge — and the headings above them; a narrow window drops the mark,
/// the movement and the code, then the rank.
public struct TeamRowRenderer: Sendable {
    /// Show emoji flags instead of short codes (terminals disagree on their width, so opt-in).
    public var showsFlags: Bool

    public init(showsFlags: Bool) { self.showsFlags = showsFlags }

    /// Columns kept for the wins figure.
    static let winsColumns = 6
    /// In a window too narrow for every column: the wins' columns, and the narrowest name
    /// kept before the code, then the rank, make room.
    static let narrowWinsColumns = 5
    static let narrowestName = 8

    /// The columns of a rank column wide enough for a zone of `teams` teams.
    public static func rankColumns(forLargestZone teams: Int) -> Int {
        max(2, String(teams).count)
    }

    /// The columns of the movement column: `▲` and a rank's digits, or `NEW`, or its heading.
    static func movementColumns(rankColumns: Int) -> Int { max(4, rankColumns + 1) }

    /// `team` as the row at `rank` (1 for a zone's leader, marked ★; nil: no rank shown), having
    /// just moved by `movement`, `width` columns wide.
    public func text(
        for team: Team, rank: Int?, movement: RankMovement? = nil, rankColumns: Int, width: Int
    ) -> String {
        let badge =
            showsFlags
            ? TeamBadge.flag(imageName: team.imageName, teamName: team.teamName)
            : TeamBadge.code(imageName: team.imageName, teamName: team.teamName)
        return columns(
            lead: rank == 1 ? "★" : "", rank: rank.map(String.init) ?? "", movement: movement?.mark ?? "",
            badge: TextWidth.fit(badge, toColumns: 4), name: TerminalText.sanitized(team.teamName),
            wins: Thousands.grouped(team.wins), rankColumns: rankColumns, width: width)
    }

    /// The column headings, aligned with ``text(for:rank:rankColumns:width:)``.
    public func heading(rankColumns: Int, width: Int) -> String {
        columns(
            lead: "", rank: "#", movement: "Move", badge: showsFlags ? "Flag" : "Code", name: "Team", wins: "Wins",
            rankColumns: rankColumns, width: width)
    }

    /// The columns of `team`'s row (as ``text(for:rank:rankColumns:width:)`` draws it) that show
    /// the bytes `ranges` of its name (UTF-8 offsets): whole characters, as far as the name
    /// is shown before a "…".
    func nameColumns(
        ofBytes ranges: [Range<Int>], for team: Team, rank: Int?, rankColumns: Int, width: Int
    ) -> [Range<Int>] {
        guard !ranges.isEmpty else { return [] }
        let wins = Thousands.grouped(team.wins)
        let layout = layout(rank: rank.map(String.init) ?? "", wins: wins, rankColumns: rankColumns, width: width)
        let start = TextWidth.columns(of: layout.prefix)
        // Each character measured as it is shown (a control character is shown as a sign).
        let characters = team.teamName.map {
            ($0.utf8.count, TextWidth.columns(of: TerminalText.sanitized(String($0))))
        }
        let whole = characters.reduce(0) { $0 + $1.1 }
        let shown = whole <= layout.nameWidth ? whole : layout.nameWidth - 1
        var columns: [Range<Int>] = []
        var (byte, column) = (0, 0)
        for (bytes, width) in characters {
            guard column + width <= shown else { break }
            let characterBytes = byte..<(byte + bytes)
            if ranges.contains(where: { $0.overlaps(characterBytes) }) {
                let cells = (start + column)..<(start + column + width)
                if let last = columns.last, last.upperBound == cells.lowerBound {
                    columns[columns.count - 1] = last.lowerBound..<cells.upperBound
                } else {
                    columns.append(cells)
                }
            }
            byte += bytes
            column += width
        }
        return columns
    }

    private func columns(
        lead: String, rank: String, movement: String, badge: String, name: String, wins: String, rankColumns: Int,
        width: Int
    ) -> String {
        let layout = layout(
            lead: lead, rank: rank, movement: movement, badge: badge, wins: wins, rankColumns: rankColumns,
            width: width)
        return layout.prefix + TextWidth.fit(name, toColumns: layout.nameWidth) + layout.winsField
    }

    /// The text before the name, the name's width, and the wins at the end. A narrow window
    /// gives up the leader's mark, the movement and the code first, then the rank, so the name
    /// and its wins stay together down to a few columns (the wins are what the row is for).
    /// The choice depends on the width alone, so the headings and every row make the same one.
    private func layout(
        lead: String = "", rank: String, movement: String = "", badge: String = "", wins: String, rankColumns: Int,
        width: Int
    )
        -> (prefix: String, nameWidth: Int, winsField: String)
    {
        let rankField = String(repeating: " ", count: max(0, rankColumns - rank.count)) + rank
        let full =
            TextWidth.fit(lead, toColumns: 1) + " " + rankField + " "
            + TextWidth.fit(movement, toColumns: Self.movementColumns(rankColumns: rankColumns)) + " "
            + TextWidth.fit(badge, toColumns: 4) + " "
        let (prefix, winsColumns): (String, Int)
        if TextWidth.columns(of: full) + Self.narrowestName + Self.winsColumns <= width {
            (prefix, winsColumns) = (full, Self.winsColumns)
        } else if rankColumns + 1 + Self.narrowestName + Self.narrowWinsColumns <= width {
            (prefix, winsColumns) = (rankField + " ", Self.narrowWinsColumns)
        } else {
            (prefix, winsColumns) = ("", Self.narrowWinsColumns)
        }
        let winsWidth = max(winsColumns, wins.count + 1)
        let nameWidth = max(1, width - TextWidth.columns(of: prefix) - winsWidth)
        let winsField = String(repeating: " ", count: winsWidth - wins.count) + wins
        return (prefix, nameWidth, winsField)
    }
}

/// A team's short code (FIFA's three letters where known) or its emoji flag.
enum TeamBadge {
    /// imageName → (FIFA code, ISO 3166 region for the emoji flag).
    private static let known: [String: (code: String, region: String?)] = [
        "algeria-flag": ("ALG", "DZ"), "cameroon-flag": ("CMR", "CM"), "ghana-flag": ("GHA", "GH"),
        "ivory-coast-flag": ("CIV", "CI"), "nigeria-flag": ("NGA", "NG"), "australia-flag": ("AUS", "AU"),
        "iran-flag": ("IRN", "IR"), "japan-flag": ("JPN", "JP"), "south-korea-flag": ("KOR", "KR"),
        "belgium-flag": ("BEL", "BE"), "bosnia-and-herzegovina-flag": ("BIH", "BA"), "croatia-flag": ("CRO", "HR"),
        "england-flag": ("ENG", nil), "france-flag": ("FRA", "FR"), "germany-flag": ("GER", "DE"),
        "greece-flag": ("GRE", "GR"), "italy-flag": ("ITA", "IT"), "netherlands-flag": ("NED", "NL"),
        "portugal-flag": ("POR", "PT"), "russia-flag": ("RUS", "RU"), "spain-flag": ("ESP", "ES"),
        "switzerland-flag": ("SUI", "CH"), "costa-rica-flag": ("CRC", "CR"), "honduras-flag": ("HON", "HN"),
        "mexico-flag": ("MEX", "MX"), "united-states-flag": ("USA", "US"), "argentina-flag": ("ARG", "AR"),
        "brazil-flag": ("BRA", "BR"), "chile-flag": ("CHI", "CL"), "colombia-flag": ("COL", "CO"),
        "ecuador-flag": ("ECU", "EC"), "uruguay-flag": ("URU", "UY"),
    ]

    static func code(imageName: String?, teamName: String) -> String {
        if let imageName, let entry = known[imageName] { return entry.code }
        let letters = teamName.uppercased().filter { $0.isLetter }
        return String(letters.prefix(3))
    }

    static func flag(imageName: String?, teamName: String) -> String {
        guard let imageName, let entry = known[imageName] else {
            return imageName == Team.addedTeamImageName ? "🏳" : code(imageName: imageName, teamName: teamName)
        }
        guard let region = entry.region else { return "🏴" }
        return String(
            String.UnicodeScalarView(region.unicodeScalars.compactMap { Unicode.Scalar(0x1F1E6 + $0.value - 65) }))
    }
}
