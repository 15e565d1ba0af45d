import Foundation
import TestSupport
import Testing

/// A PNG's pixels, read with ImageMagick, and the character cells of the xterm it shows.
struct Picture {
    struct Colour: Hashable, CustomStringConvertible {
        var red: UInt8, green: UInt8, blue: UInt8

        /// WCAG 2's relative luminance of an sRGB colour.
        var luminance: Double {
            func linear(_ value: UInt8) -> Double {
                let c = Double(value) / 255
                return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
        }

        /// WCAG 2's contrast ratio of two colours, 1 to 21.
        func contrast(with other: Colour) -> Double {
            let (a, b) = (luminance, other.luminance)
            return (max(a, b) + 0.05) / (min(a, b) + 0.05)
        }

        var description: String { String(format: "#%02x%02x%02x", red, green, blue) }
    }

    let width: Int, height: Int
    private let pixels: [UInt8]
    /// The window's size in character cells, and the cells' size in pixels (xterm keeps a
    /// border of two pixels round them).
    let columns: Int, rows: Int
    let cellWidth: Int, cellHeight: Int
    static let border = 2

    init(path: String, columns: Int, rows: Int) throws {
        let size = try ProgramRun("/usr/bin/identify", ["-format", "%w %h", path])
        let numbers = size.stdout.split(separator: " ").compactMap { Int($0) }
        guard size.status == 0, numbers.count == 2 else { throw PictureError.unreadable(path, size.stderr) }
        (width, height) = (numbers[0], numbers[1])
        // Through a file: a pipe of megabytes is read slowly.
        let rgb = TemporaryDirectory()
        let raw = try ProgramRun("/usr/bin/convert", [path, "-depth", "8", "rgb:\(rgb.path)/pixels"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: rgb.path + "/pixels"))
        guard raw.status == 0, bytes.count == width * height * 3 else {
            throw PictureError.unreadable(path, raw.stderr)
        }
        pixels = [UInt8](bytes)
        (self.columns, self.rows) = (columns, rows)
        cellWidth = (width - 2 * Self.border) / columns
        cellHeight = (height - 2 * Self.border) / rows
        guard cellWidth * columns + 2 * Self.border == width, cellHeight * rows + 2 * Self.border == height else {
            throw PictureError.notAWindowOf(columns, rows, width, height)
        }
    }

    func colour(x: Int, y: Int) -> Colour {
        let offset = (y * width + x) * 3
        return Colour(red: pixels[offset], green: pixels[offset + 1], blue: pixels[offset + 2])
    }

    /// The pixels' colours in the cells of `row` at `cells`, with their counts.
    func colours(row: Int, cells: Range<Int>) -> [Colour: Int] {
        var counts: [Colour: Int] = [:]
        for y in pixelRows(row) {
            for x in pixelColumns(cells) { counts[colour(x: x, y: y), default: 0] += 1 }
        }
        return counts
    }

    func pixelRows(_ row: Int) -> Range<Int> {
        (Self.border + row * cellHeight)..<(Self.border + (row + 1) * cellHeight)
    }

    func pixelColumns(_ cells: Range<Int>) -> Range<Int> {
        (Self.border + cells.lowerBound * cellWidth)..<(Self.border + cells.upperBound * cellWidth)
    }

    /// The text in those cells as a reader sees it: the background is the commonest colour,
    /// the text's colour the one that stands out most from it among those drawn with more than
    /// a few pixels (glyph stems and underlines have it whole; their anti-aliased edges mix
    /// it with the background, so they stand out less).
    func text(row: Int, cells: Range<Int>) -> (foreground: Colour, background: Colour, contrast: Double) {
        let counts = colours(row: row, cells: cells)
        let background = counts.max { $0.value < $1.value }!.key
        let candidates = counts.filter { $0.key != background && $0.value >= 4 }.map(\.key)
        let foreground = candidates.max { $0.contrast(with: background) < $1.contrast(with: background) } ?? background
        return (foreground, background, foreground.contrast(with: background))
    }

    /// Whether the cells are underlined: a pixel row low in the cell where every pixel across
    /// them (but the outermost) is ink, standing out from the background at least 3:1.
    func isUnderlined(row: Int, cells: Range<Int>) -> Bool {
        let background = text(row: row, cells: cells).background
        let xs = pixelColumns(cells)
        let inner = (xs.lowerBound + 1)..<(xs.upperBound - 1)
        return pixelRows(row).suffix(cellHeight / 3).contains { y in
            inner.allSatisfy { colour(x: $0, y: y).contrast(with: background) >= 3 }
        }
    }
}

enum PictureError: Error {
    case unreadable(String, String)
    case notAWindowOf(Int, Int, Int, Int)
}

/// The README's pictures (issue 44, items 5 and 6): made by `docs/pictures.sh`, which the tests
/// run, and measured from their pixels.
@Suite(.serialized) struct PictureTests {
    /// A place on a picture where a combination of the list's highlights shows: the state's
    /// picture, the screen row, the cells of the text measured.
    struct Place: CustomStringConvertible {
        var combination: String
        var state: String
        var row: Int
        var cells: Range<Int>
        var description: String { "\(combination) (\(state), row \(row))" }
    }

    /// Where each combination of mark, selection, highlight of another's change (flash) and
    /// stripe is, as the script's steps leave the seed's standings (names start at column 15).
    static let places: [Place] = [
        Place(combination: "plain", state: "list", row: 5, cells: 15..<20),  // Ghana
        Place(combination: "stripe", state: "list", row: 4, cells: 15..<23),  // Cameroon
        Place(combination: "selected", state: "list", row: 3, cells: 15..<22),  // Algeria
        Place(combination: "selected+mark", state: "search", row: 5, cells: 17..<19),  // Gh[an]a
        Place(combination: "mark", state: "search", row: 11, cells: 18..<20),  // Jap[an]
        Place(combination: "stripe+mark", state: "search", row: 10, cells: 17..<19),  // Ir[an]
        Place(combination: "selected", state: "flash", row: 5, cells: 15..<23),  // Cameroon
        Place(combination: "flash", state: "flash", row: 14, cells: 15..<22),  // Germany
        Place(combination: "flash+mark", state: "flash", row: 9, cells: 18..<20),  // Jap[an]
        Place(combination: "flash+mark", state: "flash", row: 4, cells: 17..<19),  // Gh[an]a
        Place(combination: "flash+selected+mark", state: "flash-match", row: 9, cells: 18..<20),  // Jap[an]
        Place(combination: "flash+selected", state: "flash-selected", row: 9, cells: 15..<20),  // Japan
    ]

    static let sizes = [(suffix: "", columns: 80, rows: 24), (suffix: "-wide", columns: 250, rows: 60)]
    static let states = [
        "list", "search", "flash", "flash-match", "flash-selected", "help", "dialog", "filter", "movement",
        "screen-reader",
    ]

    /// Runs the script into a folder of its own; nil (and an issue recorded) when it failed.
    static func makePictures() -> TemporaryDirectory? {
        let output = TemporaryDirectory()
        let script = WorldCupProcess.packageRoot.appendingPathComponent("docs/pictures.sh").path
        // Through system(), not Process: the script starts servers (Xvfb) of its own, which
        // would keep Process's exit-watching descriptor open (see Tmux.tmux).
        let status = system(
            "'\(script)' '\(WorldCupProcess.binary)' '\(output.path)' </dev/null >'\(output.path)/log' 2>&1")
        guard status == 0 else {
            let log = (try? String(contentsOfFile: output.path + "/log", encoding: .utf8)) ?? ""
            Issue.record("docs/pictures.sh failed (it needs Xvfb, xterm and ImageMagick: make deps): \(log)")
            return nil
        }
        return output
    }

    /// Every combination reads at WCAG AA (4.5:1) on a dark and a light terminal, at 80×24
    /// and 250×60, measured from the pixels xterm drew; a highlight has a background of its
    /// own, unlike the zone headers' text; the marks are underlined wherever they are. Every
    /// state's picture is a PNG of its window, as dark or as light as its background.
    @Test func everyCombinationReadsAtAAInEveryPicture() throws {
        // WORLDCUP_PICTURES names a folder the script already filled, to measure it again.
        let made = ProcessInfo.processInfo.environment["WORLDCUP_PICTURES"] == nil ? Self.makePictures() : nil
        guard let folder = ProcessInfo.processInfo.environment["WORLDCUP_PICTURES"] ?? made?.path else { return }
        var report: [String] = []
        for theme in ["dark", "light"] {
            for size in Self.sizes {
                for state in Self.states {
                    let path = "\(folder)/\(state)-\(theme)\(size.suffix).png"
                    let info = try ProgramRun("/usr/bin/identify", ["-format", "%m %[fx:mean]", path])
                    let fields = info.stdout.split(separator: " ")
                    try #require(info.status == 0 && fields.count == 2, "\(path): \(info.stderr)")
                    let brightness = Double(fields[1]) ?? -1
                    #expect(fields[0] == "PNG")
                    #expect(theme == "dark" ? brightness < 0.3 : brightness > 0.7, "\(path): brightness \(brightness)")
                    // The size of a window of those columns and rows, or Picture throws.
                    _ = try Picture(path: path, columns: size.columns, rows: size.rows)
                }
                var pictures: [String: Picture] = [:]
                func picture(_ state: String) throws -> Picture {
                    if let picture = pictures[state] { return picture }
                    let picture = try Picture(
                        path: "\(folder)/\(state)-\(theme)\(size.suffix).png", columns: size.columns,
                        rows: size.rows)
                    pictures[state] = picture
                    return picture
                }
                let window = try picture("list").colour(x: 0, y: 0)
                var backgrounds: [String: Picture.Colour] = [:]
                for place in Self.places {
                    let measured = try picture(place.state).text(row: place.row, cells: place.cells)
                    let ratio = String(format: "%.1f", measured.contrast)
                    report.append(
                        "\(theme)\(size.suffix) \(place.combination): \(measured.foreground) on "
                            + "\(measured.background) \(ratio):1")
                    #expect(
                        measured.contrast >= 4.5,
                        "\(theme)\(size.suffix) \(place): \(measured.foreground) on \(measured.background), \(ratio):1")
                    backgrounds[place.combination] = measured.background
                    if place.combination.contains("mark") {
                        // Booleans, not the picture, in expectations: a failure would describe
                        // every pixel.
                        let underlined = try picture(place.state).isUnderlined(row: place.row, cells: place.cells)
                        #expect(underlined, "\(theme)\(size.suffix) \(place): the mark is underlined")
                    }
                }
                // The highlight of another's change has a background of its own: not the
                // window's (as the zone headers' text has), nor the bar's, nor a stripe's.
                let flash = try #require(backgrounds["flash"])
                #expect(flash != window, "\(theme)\(size.suffix): the flash has a background")
                #expect(flash != backgrounds["selected"], "\(theme)\(size.suffix): not the bar's")
                #expect(flash != backgrounds["stripe"], "\(theme)\(size.suffix): not a stripe's")
                #expect(backgrounds["stripe"] != window, "\(theme)\(size.suffix): every other row is striped")
            }
        }
        print("PictureTests contrast:\n" + report.joined(separator: "\n"))
    }

    /// Issue 44, item 6: the pictures in the README show what it says: the matches of the
    /// search are marked (underlined) in every visible row, not only where the bar is.
    @Test(arguments: ["dark", "light"])
    func theReadmesSearchPicturesShowTheMarks(theme: String) throws {
        let docs = WorldCupProcess.packageRoot.appendingPathComponent("docs/screenshots").path
        let search = try Picture(path: "\(docs)/search-\(theme).png", columns: 80, rows: 24)
        // Booleans, not the picture, in expectations: a failure would describe every pixel.
        let ghana = search.isUnderlined(row: 5, cells: 17..<19), japan = search.isUnderlined(row: 11, cells: 18..<20)
        let iran = search.isUnderlined(row: 10, cells: 17..<19), rest = search.isUnderlined(row: 11, cells: 15..<17)
        #expect(ghana, "Gh[an]a, under the bar")
        #expect(japan, "Jap[an]")
        #expect(iran, "Ir[an]")
        #expect(!rest, "not the rest of the name")
        let readme = try String(
            contentsOf: WorldCupProcess.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for match in readme.matches(of: /\]\((docs\/screenshots\/[a-z-]+\.png)\)/) {
            let path = WorldCupProcess.packageRoot.appendingPathComponent(String(match.output.1)).path
            #expect(FileManager.default.fileExists(atPath: path), "the README's \(match.output.1) exists")
        }
    }
}
