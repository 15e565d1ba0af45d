import Foundation

/// The standings as JSON, the one format `worldcup list --json` prints and `serve` answers at
/// `/standings.json`, byte for byte.
public enum StandingsJSON {
    /// `[{"zone": …, "teams": [{"teamName": …, "qualifyingZone": …, "imageName": …, "wins": …}]}]`,
    /// each team as its seed entry (a key for each of ``Team/userFields``), pretty-printed with
    /// sorted keys, control characters escaped (see ``JSONText``), ending in a newline.
    public static func encode(_ standings: [ZoneStanding]) throws -> String {
        let sections = standings.map { standing in
            Section(zone: standing.zone, teams: standing.teams.map { SeedEntry($0) })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(sections), as: UTF8.self)
        return JSONText.escapingControls(json) + "\n"
    }

    private struct Section: Encodable {
        var zone: String
        var teams: [SeedEntry]
    }
}

/// JSON made safe to print on a terminal without changing what it means.
public enum JSONText {
    /// `json` with DEL and the C1 controls written as `\u` escapes. JSON may hold those raw
    /// inside its strings (encoders escape only the C0 ones, which JSON requires), and a
    /// terminal would act on them; escaped, the JSON means exactly the same.
    public static func escapingControls(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: isEscaped) else { return json }
        var escaped = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if isEscaped(scalar) {
                escaped.append(contentsOf: "\\u00\(String(scalar.value, radix: 16))".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    private static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        (0x7F...0x9F).contains(scalar.value)
    }
}
