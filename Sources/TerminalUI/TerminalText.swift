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

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
