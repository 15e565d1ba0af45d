/// A small, fast JSON writer for the event stream: a change set or a snapshot chunk of a
/// million rows is written straight into bytes, with no intermediate objects.
struct WireJSON {
    private(set) var bytes: [UInt8] = []

    init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Raw JSON punctuation or a literal the caller knows is valid.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func number<N: BinaryInteger>(_ value: N) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A JSON string: quotes, backslashes and every control character escaped; U+2028 and
    /// U+2029 too, which some JavaScript parsers read as line ends.
    private static func mayNeedEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F || byte == 0xC2 || byte == 0xE2
    }

    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most names need no escape: their bytes go as they are. Bytes that may start one
        // (C1 controls are C2 80–9F in UTF-8, U+2028/9 start with E2) take the slow path.
        if !text.utf8.contains(where: Self.mayNeedEscape) {
            bytes.append(contentsOf: text.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": raw("\\\"")
            case "\\": raw("\\\\")
            case "\u{2028}": raw("\\u2028")
            case "\u{2029}": raw("\\u2029")
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                bytes.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default:
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
