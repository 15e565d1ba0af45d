import TerminalUI

/// Formats one team as a row: a flag or short code, the name, and the wins right-aligned.
public struct TeamRowRenderer: Sendable {
    /// Show emoji flags instead of short codes (terminals disagree on their width, so opt-in).
    public var showsFlags: Bool

    public init(showsFlags: Bool) { self.showsFlags = showsFlags }

    /// Columns kept for the wins figure.
    static let winsColumns = 6
    /// Rows wider than this keep the wins close to the name, where the eye can pair them.
    static let maximumColumns = 64

    public func text(for team: Team, width: Int) -> String {
        let width = min(width, Self.maximumColumns)
        let badge = showsFlags ? TeamBadge.flag(imageName: team.imageName, teamName: team.teamName)
                               : TeamBadge.code(imageName: team.imageName, teamName: team.teamName)
        let wins = String(team.wins)
        let prefix = "  " + TextWidth.fit(badge, toColumns: 3) + "  "
        let nameWidth = max(1, width - TextWidth.columns(of: prefix) - max(Self.winsColumns, wins.count + 1))
        let name = TextWidth.fit(TerminalText.sanitized(team.teamName), toColumns: nameWidth)
        let winsField = String(repeating: " ", count: max(0, max(Self.winsColumns, wins.count + 1) - wins.count)) + wins
        return prefix + name + winsField
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
        return String(String.UnicodeScalarView(region.unicodeScalars.compactMap { Unicode.Scalar(0x1F1E6 + $0.value - 65) }))
    }
}
