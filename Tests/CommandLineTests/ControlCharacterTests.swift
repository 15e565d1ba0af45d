import Foundation
import GRDB
import TestSupport
import Testing

/// Text a user gave (a name, a zone, a file path, an argument) never reaches the terminal with
/// its control characters raw: an escape sequence in a name must not rewrite what others see.
/// Every C0 control, DEL and every C1 control go through every command's messages, on stdout and
/// stderr; each is shown as U+FFFD, as `list` and the scoreboard show them. Names are stored as
/// they were given.
@Suite struct ControlCharacterTests {
    /// Every C0 control but NUL (no argument can hold one), DEL, and every C1 control.
    static let controls: String = {
        let values = Array(0x01...0x1F) + [0x7F] + Array(0x80...0x9F)
        return String(String.UnicodeScalarView(values.map { Unicode.Scalar(UInt32($0))! }))
    }()
    static let name = "Evil" + controls + "Red"
    /// How the controls must look in a message: each as U+FFFD.
    static let visible = String(repeating: "\u{FFFD}", count: 64)
    static let shown = "Evil" + visible + "Red"

    /// The output is valid UTF-8 and holds no control but the newlines that end its lines.
    static func expectNoRawControl(
        _ result: WorldCupProcess.Result, _ step: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (stream, bytes) in [("stdout", result.stdoutBytes), ("stderr", result.stderrBytes)] {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                Issue.record("\(step): \(stream) is not valid UTF-8", sourceLocation: sourceLocation)
                continue
            }
            let raw = text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
            let codes = raw.map { String($0.value, radix: 16) }
            #expect(
                raw.isEmpty, "\(step): \(stream) holds \(codes): \(text.debugDescription)",
                sourceLocation: sourceLocation)
        }
    }

    @Test func everyCommandsMessagesShowControlsVisibly() throws {
        let directory = TemporaryDirectory()
        let store = ["--db", directory.store, "--seed", WorldCupProcess.seedPath]
        let controlled = directory.path + "/in" + Self.controls
        try FileManager.default.createDirectory(atPath: controlled, withIntermediateDirectories: false)
        let entry = #"{"teamName": "Fresh\#(Self.jsonControls)Team", "qualifyingZone": "Z", "wins": 0}"#
        let fresh = directory.file("in" + Self.controls + "/fresh.json", contents: "[\(entry)]")
        let duplicate = directory.file("in" + Self.controls + "/dup.json", contents: "[\(entry), \(entry)]")
        let shownFolder = directory.path + "/in" + Self.visible
        let freshName = "Fresh" + Self.visible + "Team"
        // A NUL, which no argument can hold but a file can, is refused (SQLite would cut the name).
        let withNUL = directory.file(
            "in" + Self.controls + "/nul.json",
            contents: #"[{"teamName": "Nul\u0000\#(Self.jsonControls)", "qualifyingZone": "Z", "wins": 0}]"#)
        let controls = Self.controls, visible = Self.visible, name = Self.name, shown = Self.shown
        let unreachable = "postgresql://nobody@/worldcup" + controls + "?host=/nonexistent&port=5999"
        // (arguments, a text the output must hold: the user's text, shown)
        let steps: [([String], String?)] = [
            (["add", "--name", name, "--zone", "Internets"] + store, "Added \(shown) to Internets\n"),
            (
                ["add", "--name", name.uppercased(), "--zone", "Internets"] + store,
                "a team named \"\(shown)\" already exists"
            ),
            (["add", "--name", "Zoned", "--zone", "Zone" + controls] + store, "Added Zoned to Zone\(visible)\n"),
            (["win", name] + store, nil),
            (
                ["win", "Evil" + controls + "Rex"] + store,
                "no team named \"Evil\(visible)Rex\". Did you mean \"\(shown)\"?"
            ),
            (["list"] + store, shown),
            (["list", "--json"] + store, nil),
            (["export"] + store, nil),
            (["import", fresh] + store, "Imported 1 team from \(shownFolder)/fresh.json\n"),
            (
                ["import", fresh] + store,
                "\(shownFolder)/fresh.json, entry 0, field \"teamName\": a team named \"\(freshName)\" is already"
            ),
            (
                ["import", duplicate, "--db", directory.path + "/other.sqlite"],
                "\"\(freshName)\" is already the name of entry 0"
            ),
            (
                ["import", withNUL] + store,
                "\(shownFolder)/nul.json, entry 0, field \"teamName\": must not contain a NUL character"
            ),
            (
                ["import", controlled + "/nope.json"] + store,
                "cannot read the import file \(shownFolder)/nope.json: no such file."
            ),
            (["export", controlled + "/backup.json"] + store, "Exported 35 teams to \(shownFolder)/backup.json\n"),
            (
                ["export", controlled + "/missing/backup.json"] + store,
                "the export file \(shownFolder)/missing/backup.json: its folder"
            ),
            (
                ["generate", "--teams", "3", "--output", controlled + "/teams.json"],
                "Wrote 3 teams in 3 zones to \(shownFolder)/teams.json\n"
            ),
            (
                ["generate", "--teams", "3", "--output", controlled + "/teams.json"],
                "the output file \(shownFolder)/teams.json already"
            ),
            (
                ["list", "--db", controlled + "/missing/store.sqlite"],
                "the folder for the store \(shownFolder)/missing/store.sqlite"
            ),
            (
                ["list", "--db", directory.path + "/new.sqlite", "--seed", controlled + "/seed.json"],
                "the seed file \(shownFolder)/seed.json"
            ),
            (["list", "--frob" + controls] + store, "unknown option '--frob\(visible)'\n"),
            (["lsit" + controls] + store, "unexpected argument 'lsit\(visible)'\n"),
            (
                ["win", "brazil", "--count", "1" + controls] + store,
                "the value '1\(visible)' is invalid for '--count <count>'\n"
            ),
            (["list", "--db", unreachable], "worldcup: "),
        ]
        for (arguments, expected) in steps {
            let step = arguments.prefix(2).joined(separator: " ").debugDescription
            let result = try WorldCupProcess.run(arguments)
            Self.expectNoRawControl(result, step)
            if let expected {
                #expect((result.stdout + result.stderr).contains(expected), "\(step): \(result.stdout)\(result.stderr)")
            }
        }
        // The names went in literally, controls and all.
        let names = try DatabaseQueue(path: directory.store).read { db in
            try Data.fetchAll(db, sql: "SELECT CAST(teamName AS BLOB) FROM team")
                .map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(names.contains(Self.name))
        #expect(names.contains("Fresh" + Self.controls + "Team"), "the import's controls are kept")
    }

    /// The controls as JSON escapes.
    static let jsonControls = controls.unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined()
}
