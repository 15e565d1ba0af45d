#if canImport(Glibc)
    import Glibc
#endif

/// Whether the terminal draws on a dark or a light background, so that colours can be chosen
/// that read on it (bright cyan is clear on black and faint on white).
public enum TerminalBackground: String, Equatable, Sendable {
    /// Black or a dark colour, under light text.
    case dark
    /// White or a light colour, under dark text.
    case light

    /// The background of a colour given as red, green and blue from 0 to 1: light when its
    /// relative luminance (ITU-R BT.709 weights) is over one half.
    public init(red: Double, green: Double, blue: Double) {
        self = 0.2126 * red + 0.7152 * green + 0.0722 * blue > 0.5 ? .light : .dark
    }

    /// The background an `rxvt`-style `COLORFGBG` ("15;0", "0;default;15") names by its last
    /// field, a colour number: 7 and 9 to 15 are light (as vim reads it), the others dark; nil
    /// when it names none.
    public init?(colorFGBG value: String) {
        guard let last = value.split(separator: ";").last, let number = Int(last), (0...255).contains(number) else {
            return nil
        }
        self = number == 7 || (9...15).contains(number) ? .light : .dark
    }

    /// The background named by an OSC 11 reply's colour: `rgb:RRRR/GGGG/BBBB` with one to
    /// four hexadecimal digits per part (xterm's form; others answer the same way).
    public init?(osc11Color text: String) {
        guard text.hasPrefix("rgb:") else { return nil }
        let parts = text.dropFirst(4).split(separator: "/", omittingEmptySubsequences: false)
        let values = parts.compactMap { part -> Double? in
            guard (1...4).contains(part.count), let value = Int(part, radix: 16) else { return nil }
            return Double(value) / Double((1 << (4 * part.count)) - 1)
        }
        guard parts.count == 3, values.count == 3 else { return nil }
        self.init(red: values[0], green: values[1], blue: values[2])
    }
}

/// The terminal's answers to "what is your background?" (OSC 11) followed by "what are you?"
/// (DA1, which every terminal answers, so one that ignores OSC 11 is known at once), read
/// from the bytes that came back, with whatever else came (keys typed meanwhile).
public struct BackgroundReply: Equatable, Sendable {
    /// The two questions, as sent.
    public static let query = Array("\u{1B}]11;?\u{1B}\\\u{1B}[c".utf8)

    /// Whether the OSC 11 reply came (a terminal may answer with a colour it cannot name).
    public var hasColorReply = false
    /// The background the OSC 11 reply named, if one came.
    public var background: TerminalBackground?
    /// Whether the DA1 reply came: no more replies will.
    public var isComplete = false
    /// Bytes that were no part of a reply, in order: keys typed before the replies.
    public var otherBytes: [UInt8] = []

    /// Reads `bytes` as they came from the terminal; a reply cut off at the end is left out of
    /// every field (it is still coming).
    public init(_ bytes: [UInt8]) {
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x1B, let (reply, end) = Self.reply(in: bytes, from: index) {
                switch reply {
                case .color(let text):
                    hasColorReply = true
                    background = TerminalBackground(osc11Color: text)
                case .attributes: isComplete = true
                case .unfinished: return
                }
                index = end
            } else {
                otherBytes.append(bytes[index])
                index += 1
            }
        }
    }

    private enum Reply {
        case color(String)
        case attributes
        case unfinished
    }

    /// The reply starting at `start` (an ESC) and the index after it; nil when the bytes there
    /// are not one of the two replies.
    private static func reply(in bytes: [UInt8], from start: Int) -> (Reply, Int)? {
        let color = Array("\u{1B}]11;".utf8), attributes = Array("\u{1B}[?".utf8)
        let rest = bytes[start...]
        if rest.starts(with: color) {
            // The colour, ended by BEL or by ST (ESC \).
            let text = start + color.count
            guard let end = bytes[text...].firstIndex(where: { $0 == 0x07 || $0 == 0x1B }) else {
                return (.unfinished, bytes.count)
            }
            let colour = String(decoding: bytes[text..<end], as: UTF8.self)
            if bytes[end] == 0x07 { return (.color(colour), end + 1) }
            guard end + 1 < bytes.count else { return (.unfinished, bytes.count) }
            guard bytes[end + 1] == UInt8(ascii: "\\") else { return nil }
            return (.color(colour), end + 2)
        }
        if rest.starts(with: attributes) {
            // Digits and semicolons, ended by "c".
            var index = start + attributes.count
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "c") { return (.attributes, index + 1) }
                guard (0x30...0x3B).contains(bytes[index]) else { return nil }
                index += 1
            }
            return (.unfinished, bytes.count)
        }
        // The start of a reply whose rest has not come yet.
        if color.starts(with: rest) || attributes.starts(with: rest) { return (.unfinished, bytes.count) }
        return nil
    }

    /// Asks the terminal on `input` / `output` and waits for its answers, at most
    /// `timeoutMilliseconds` (a terminal that answers nothing at all costs that once). The tty
    /// is put in non-canonical mode without echo meanwhile, and put back as it was.
    public static func ask(input: Int32, output: Int32, timeoutMilliseconds: Int) -> BackgroundReply {
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { return BackgroundReply([]) }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(input, TCSANOW, &quiet) == 0 else { return BackgroundReply([]) }
        defer { tcsetattr(input, TCSANOW, &saved) }
        let written = query.withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
        guard written == query.count else { return BackgroundReply([]) }
        var received: [UInt8] = []
        let deadline = monotonicMilliseconds() + timeoutMilliseconds
        while true {
            let reply = BackgroundReply(received)
            let left = deadline - monotonicMilliseconds()
            if reply.isComplete || left <= 0 { return reply }
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(left)) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = read(input, &buffer, buffer.count)
            if count <= 0 { return reply }
            received += buffer.prefix(count)
        }
    }

    private static func monotonicMilliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }
}
