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

    /// The width of the terminal stderr writes to, in columns (nil when it is not one).
    public static var stderrColumns: Int? {
        var size = winsize()
        guard ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
