/// Makes untrusted text safe to write to a terminal.
///
/// Team names come from files and other people's keyboards. A raw ESC or other control
/// character in one would be interpreted by the terminal (moving the cursor, changing the
/// title, worse), so every string that reaches a terminal goes through `sanitized(_:)` first.
public enum TerminalText {
    /// `text` with every control character (C0, DEL, C1) replaced by U+FFFD.
    public static func sanitized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(isControl(scalar) ? "\u{FFFD}" : scalar)
        }
        return String(scalars)
    }

    /// `json` with DEL and the C1 controls written as `\u` escapes. JSON may hold those raw
    /// inside its strings (encoders escape only the C0 ones, which JSON requires), and a
    /// terminal would act on them; escaped, the JSON means exactly the same.
    public static func escapingControls(inJSON json: String) -> String {
        guard json.unicodeScalars.contains(where: { isControl($0) && $0.value >= 0x7F }) else { return json }
        var escaped = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if isControl(scalar) && scalar.value >= 0x7F {
                escaped.append(contentsOf: "\\u00\(String(scalar.value, radix: 16))".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
