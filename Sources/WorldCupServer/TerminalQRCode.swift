import CQrencode

/// A link drawn as a QR code in text (libqrencode), so that a phone joins by scanning the
/// terminal: two rows of modules per line with half blocks, and a quiet zone around.
enum TerminalQRCode {
    /// Modules of light margin on each side.
    static let quietZone = 2

    /// The code's lines; with `colors`, light modules are drawn white on black whatever the
    /// terminal's own colours. Nil if the text cannot be encoded.
    static func lines(for text: String, colors: Bool) -> [String]? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = code.pointee.data!
        let size = width + 2 * quietZone
        // Dark when inside the symbol and its module's lowest bit is set.
        func dark(_ x: Int, _ y: Int) -> Bool {
            let (column, row) = (x - quietZone, y - quietZone)
            guard (0..<width).contains(column), (0..<width).contains(row) else { return false }
            return data[row * width + column] & 1 == 1
        }
        var lines: [String] = []
        for y in stride(from: 0, to: size, by: 2) {
            var line = colors ? "\u{1B}[97;40m" : ""
            for x in 0..<size {
                let top = !dark(x, y), bottom = y + 1 < size && !dark(x, y + 1)
                line += top && bottom ? "█" : top ? "▀" : bottom ? "▄" : " "
            }
            lines.append(line + (colors ? "\u{1B}[0m" : ""))
        }
        return lines
    }
}
