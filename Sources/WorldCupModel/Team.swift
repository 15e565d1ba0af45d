import FetchedResults

/// One World Cup team: the tutorial's four attributes plus SQLite's row id.
public struct Team: Codable, Equatable, Sendable {
    public var id: Int64?
    public var teamName: String
    public var qualifyingZone: String
    public var imageName: String?
    public var wins: Int

    public init(id: Int64? = nil, teamName: String, qualifyingZone: String, imageName: String?, wins: Int) {
        self.id = id
        self.teamName = teamName
        self.qualifyingZone = qualifyingZone
        self.imageName = imageName
        self.wins = wins
    }

    /// Every stored field, in the order of the stores' columns (a new field goes last, as a
    /// migration adds its column): the one description of a team's shape that the stores, the
    /// seed files, `worldcup list --json` and `serve`'s events follow.
    public static let fields: [TeamField] = [
        TeamField("id", .rowID, eventKey: "id"),
        TeamField("teamName", .text(\.teamName), eventKey: "name"),
        TeamField("qualifyingZone", .text(\.qualifyingZone), eventKey: "zone"),
        TeamField("imageName", .optionalText(\.imageName)),
        TeamField("wins", .count(\.wins), eventKey: "wins"),
    ]

    /// The image name every team added by hand gets, as in the tutorial.
    public static let addedTeamImageName = "wenderland-flag"

    /// The standings order, the tutorial's three sort descriptors
    /// `[qualifyingZone ↑, wins ↓, teamName ↑]`, on the tutorial's attribute names, text
    /// compared ignoring ASCII case. The one source of the order: each store's request,
    /// `worldcup list` and each store's standings index are all made from it (the row id breaks
    /// ties), a store naming the attributes as its columns do.
    public static let standingsOrder: [ColumnSortDescriptor] = [
        .ascending("qualifyingZone", collation: .caseInsensitive),
        .descending("wins"),
        .ascending("teamName", collation: .caseInsensitive),
    ]

    /// The place of the name among ``standingsOrder``'s descriptors, for a search of the names.
    public static let nameSortDescriptorIndex = 2

    /// The attribute whose values cut the standings into sections: the zone.
    public static let sectionAttribute = "qualifyingZone"

    /// The standings as the scoreboard follows them: every team in ``standingsOrder``,
    /// sectioned by zone, read a screenful at a time, so that a store of a million teams costs
    /// only their order in memory. On the tutorial's attribute names: a store whose columns are
    /// named otherwise renames them (``TableFetchRequest/renamingAttributes(_:)``).
    public static let standingsRequest = TableFetchRequest(
        table: "team", sortDescriptors: standingsOrder, fetchBatchSize: 100)
}

/// Case folding exactly as SQLite's `NOCASE` collation does it: ASCII letters only.
///
/// The store enforces unique names and groups zones with `NOCASE`, so every check made in Swift
/// (duplicates inside a seed file, matching a zone's spelling) uses the same rule and can never
/// disagree with the database.
public enum NoCase {
    public static func key(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}

extension TableFetchRequest {
    /// The request with every attribute name (the sort keys') as `column` names it: for a store
    /// whose columns are not named after the tutorial's attributes.
    public func renamingAttributes(_ column: (String) -> String) -> TableFetchRequest {
        var request = self
        request.sortDescriptors = sortDescriptors.map {
            ColumnSortDescriptor(key: column($0.key), ascending: $0.ascending, collation: $0.collation)
        }
        return request
    }

    /// The standings narrowed to the teams whose name contains `text`, ASCII letters in either
    /// case (as search matches), for the scoreboard's filter; an empty text: every team. A
    /// longer text narrows the list in memory (``TextFilter``).
    public func narrowed(toNamesContaining text: String) -> TableFetchRequest {
        var request = self
        request.textFilter =
            text.isEmpty ? nil : TextFilter(sortDescriptorAt: Team.nameSortDescriptorIndex, containing: text)
        return request
    }
}
