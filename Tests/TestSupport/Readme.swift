import Foundation

/// The README, read at test time, so that the tests check what users are told rather than a
/// copy that could drift from it.
public enum Readme {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The whole README.
    public static func text() throws -> String {
        try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
    }

    /// The body of the fenced block in `language` whose first line is `marker` (the marker
    /// line included), without its fences.
    public static func fencedBlock(language: String, startingWith marker: String) throws -> String {
        let readme = try text()
        guard let start = readme.range(of: "```\(language)\n\(marker)"),
            let end = readme.range(of: "\n```", range: start.upperBound..<readme.endIndex)
        else {
            throw ReadmeError(description: "README.md has no ```\(language) block starting with \(marker)")
        }
        let body = readme.index(start.lowerBound, offsetBy: 4 + language.count)
        return String(readme[body..<end.lowerBound]) + "\n"
    }

    /// The rows of the first Markdown table after the line that starts with `heading`, each as
    /// its cells' text (the header and the separator row left out).
    public static func table(after heading: String) throws -> [[String]] {
        let lines = try text().components(separatedBy: "\n")
        guard let headingIndex = lines.firstIndex(where: { $0.hasPrefix(heading) }),
            let tableStart = lines[headingIndex...].firstIndex(where: { $0.hasPrefix("|") })
        else {
            throw ReadmeError(description: "README.md has no table after a line starting with \(heading)")
        }
        let table = lines[tableStart...].prefix { $0.hasPrefix("|") }
        return table.dropFirst(2).map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The spans of `text` between backticks.
    public static func codeSpans(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }
}

/// The README lacks something the tests read from it.
public struct ReadmeError: Error, CustomStringConvertible {
    public let description: String
}
