/// An entry's keys as help and error messages name them, made from ``Team/userFields``.
extension SeedEntry {
    /// Every key: `{teamName, qualifyingZone, imageName, wins}`.
    public static let keyList = "{" + keys.joined(separator: ", ") + "}"

    /// Every key, in a sentence: `teamName, qualifyingZone, imageName and wins`.
    public static let keySentence = listed(keys)

    /// The array a file holds, as an example: `[ { "teamName": …, "wins": … }, … ]`.
    public static let arrayExample = "[ { " + keys.map { "\"\($0)\": …" }.joined(separator: ", ") + " }, … ]"

    /// The keys an entry may leave out, in a sentence: `imageName`.
    public static let optionalKeySentence = listed(
        Team.userFields.filter { field in
            switch field.kind {
            case .optionalText, .count(_, seedDefault: _?): true
            case .rowID, .text, .count: false
            }
        }.map(\.name))

    private static let keys = Team.userFields.map(\.name)

    /// `a`, `a and b`, `a, b and c`.
    private static func listed(_ names: [String]) -> String {
        guard let last = names.last, names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + last
    }
}
