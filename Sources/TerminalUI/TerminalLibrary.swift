import CNcursesw
#if canImport(Glibc)
import Glibc
#endif

/// Facts about the terminal library this program is linked against.
public enum TerminalLibrary {
    /// The linked ncurses version, such as "ncurses 6.4.20221231".
    public static var version: String {
        String(cString: curses_version())
    }

    /// Whether stdin and stdout are both terminals, as the interactive scoreboard needs.
    public static var hasInteractiveTerminal: Bool {
        isatty(0) == 1 && isatty(1) == 1
    }

    /// Whether stderr is a terminal, so progress output can redraw one line in place.
    public static var stderrIsTerminal: Bool {
        isatty(2) == 1
    }
}
