import CNcursesw
#if canImport(Glibc)
import Glibc
#endif

/// Why the terminal could not be used, in words a user can act on.
public enum TerminalError: Error, CustomStringConvertible {
    case termUnset
    case unsupportedTerminal(String)

    public var description: String {
        switch self {
        case .termUnset:
            return "TERM is not set, so a full-screen program cannot drive this terminal. Set it (for example TERM=xterm-256color)."
        case let .unsupportedTerminal(name):
            return "the terminal type \"\(name)\" cannot show a full-screen program (unknown, or no cursor movement). Set TERM to your terminal's type (for example xterm-256color)."
        }
    }
}

/// The real terminal, through ncursesw: a ``Surface`` to draw on and a source of ``Key``s.
///
/// Started with `newterm` (not `initscr`, which exits the process on failure) after `setlocale`,
/// in raw mode so Ctrl-C arrives as a key. Every frame is one `doupdate`, so ncurses sends only
/// the cells that changed. ``stop()`` — and the signal handlers, on any other way out —
/// restore the terminal.
public final class CursesTerminal: Surface {
    private let screen: OpaquePointer
    private let window: UnsafeMutablePointer<WINDOW>
    private let hasColors: Bool
    private var stopped = false
    private var cursorVisible: Bool?

    /// Takes over the terminal on stdin/stdout.
    ///
    /// - Parameter colors: use colours when the terminal has them (pass false for `NO_COLOR`).
    public static func start(colors: Bool) throws -> CursesTerminal {
        // The environment's locale first, then the UTF-8 fallback for the character type, so that
        // newterm already sees UTF-8 (the other order would undo the fallback when LANG is unset).
        setlocale(LC_ALL, "")
        TextWidth.prepareLocale()
        guard let term = getenv("TERM").map({ String(cString: $0) }), !term.isEmpty else { throw TerminalError.termUnset }
        TerminalRestore.saveModes()
        // Own FILE streams on descriptors 1 and 0: the C globals stdout/stdin are not concurrency-safe in Swift 6.
        guard term != "dumb", let output = fdopen(STDOUT_FILENO, "w"), let input = fdopen(STDIN_FILENO, "r"),
              let screen = newterm(nil, output, input) else { throw TerminalError.unsupportedTerminal(term) }
        set_term(screen)
        guard let cup = tigetstr("cup"), Int(bitPattern: cup) != -1 else {
            endwin()
            delscreen(screen)
            TerminalRestore.restoreFromSignal()
            throw TerminalError.unsupportedTerminal(term)
        }
        TerminalRestore.save(resetSequence: Self.resetSequence())
        TerminalRestore.installSignalHandlers()
        return CursesTerminal(screen: screen, colors: colors)
    }

    private init(screen: OpaquePointer, colors: Bool) {
        self.screen = screen
        window = worldcup_stdscr()
        raw()
        noecho()
        nonl()
        keypad(window, true)
        set_escdelay(25)
        mouseinterval(0)
        mousemask(Self.mouseEvents, nil)
        var colorful = false
        if colors && has_colors() {
            start_color()
            use_default_colors()
            init_pair(1, Int16(COLOR_CYAN), -1)
            colorful = true
        }
        hasColors = colorful
    }

    /// Clicks and the wheel.
    private static var mouseEvents: mmask_t {
        worldcup_button1_pressed() | worldcup_button1_clicked() | worldcup_button4_pressed() | worldcup_button5_pressed()
    }

    /// The terminal's own strings for leaving full-screen mode, showing the cursor, resetting
    /// attributes, plus turning mouse reporting off.
    private static func resetSequence() -> [UInt8] {
        var bytes: [UInt8] = []
        for capability in ["sgr0", "cnorm", "rmcup"] {
            if let value = tigetstr(capability), Int(bitPattern: value) != -1 {
                bytes += Array(String(cString: value).utf8)
            }
        }
        return bytes + Array("\u{1B}[?1000l\u{1B}[?1002l\u{1B}[?1006l".utf8)
    }

    /// Gives the terminal back: leaves full-screen mode and restores the tty modes.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        endwin()
        delscreen(screen)
        TerminalRestore.restoreFromSignal()
        TerminalRestore.removeSignalHandlers()
    }

    deinit { stop() }

    // MARK: - Surface

    public var rows: Int { Int(worldcup_getmaxy(window)) }
    public var columns: Int { Int(worldcup_getmaxx(window)) }

    public func drawLine(_ row: Int, _ text: String, style: TextStyle) {
        guard row >= 0, row < rows else { return }
        wmove(window, Int32(row), 0)
        let fitted = TextWidth.truncate(TerminalText.sanitized(text), toColumns: columns)
        put(fitted, style: style)
        // The rest of the row blank and plain, so a highlight bar is as wide as its text. A
        // full row needs no clearing (and curses has wrapped to the next row, which a clear
        // would erase).
        if TextWidth.columns(of: fitted) < columns { wclrtoeol(window) }
    }

    public func draw(row: Int, column: Int, _ text: String, style: TextStyle) {
        guard row >= 0, row < rows, column >= 0, column < columns else { return }
        wmove(window, Int32(row), Int32(column))
        put(TextWidth.truncate(TerminalText.sanitized(text), toColumns: columns - column), style: style)
    }

    private func put(_ text: String, style: TextStyle) {
        let attributes = attributes(for: style)
        wattr_on(window, attributes, nil)
        var wide = text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
        wide.append(0)
        waddnwstr(window, wide, Int32(wide.count - 1))
        wattr_off(window, attributes, nil)
    }

    private func attributes(for style: TextStyle) -> attr_t {
        var attributes: attr_t = 0
        if style.contains(.reverse) { attributes |= worldcup_a_reverse() }
        if style.contains(.bold) { attributes |= worldcup_a_bold() }
        if style.contains(.underline) { attributes |= worldcup_a_underline() }
        if style.contains(.dim) { attributes |= attr_t(worldcup_a_dim()) }
        if style.contains(.accent) && hasColors { attributes |= attr_t(worldcup_color_pair(1)) }
        return attributes
    }

    public func placeCursor(row: Int, column: Int) {
        wmove(window, Int32(max(0, min(row, rows - 1))), Int32(max(0, min(column, columns - 1))))
    }

    public func setCursorVisible(_ visible: Bool) {
        guard visible != cursorVisible else { return }
        curs_set(visible ? 1 : 0)
        cursorVisible = visible
    }

    public func present() {
        wnoutrefresh(window)
        doupdate()
    }

    /// Forgets what is on the physical screen so the next frame repaints everything (after a
    /// resize, or Ctrl-L when something else wrote over the screen).
    public func invalidate() {
        wclear(window)
    }

    /// Ctrl-Z: gives the terminal back and stops the program's process group, as the terminal
    /// itself would outside raw mode; returns after `fg` (or `kill -CONT`). The caller redraws
    /// everything then. Without job control (an orphaned process group) the stop is ignored
    /// by the kernel, and this returns at once.
    public func suspend() {
        endwin()
        TerminalRestore.restoreFromSignal()
        signal(SIGTSTP, SIG_DFL)
        kill(0, SIGTSTP)
        // Resumed: curses goes back to full-screen mode at the next refresh; mouse reporting,
        // which the reset turned off, is asked for again.
        cursorVisible = nil
        mousemask(0, nil)
        mousemask(Self.mouseEvents, nil)
        wclear(window)
    }

    // MARK: - Input

    /// What ended a wait for a key.
    public enum Wake: Equatable {
        case key(Key)
        /// The other descriptor became readable.
        case otherDescriptor
        case timedOut
        /// The terminal went away (hung up, closed): no key will ever come.
        case inputClosed
    }

    /// Waits for a key or for `descriptor` to become readable, whichever comes first, sleeping
    /// in `poll` meanwhile (-1 waits without a time limit). A key wins when both are ready.
    public func waitForKey(timeoutMilliseconds: Int32, orReadable descriptor: Int32) -> Wake {
        // Keys curses has already read (the rest of a burst) are not in the kernel's buffer.
        if let key = readKey(timeoutMilliseconds: 0) { return .key(key) }
        var descriptors = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&descriptors, 2, timeoutMilliseconds)
        // Also after an interruption: a resize signal makes curses report KEY_RESIZE.
        if ready != 0, let key = readKey(timeoutMilliseconds: 0) { return .key(key) }
        if ready > 0, descriptors[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return .inputClosed }
        if ready > 0, descriptors[1].revents != 0 { return .otherDescriptor }
        return .timedOut
    }

    /// The next key, or nil when `timeoutMilliseconds` pass without one (-1 waits forever).
    public func readKey(timeoutMilliseconds: Int32) -> Key? {
        wtimeout(window, timeoutMilliseconds)
        var value: wint_t = 0
        let result = wget_wch(window, &value)
        if result == ERR { return nil }
        if result == KEY_CODE_YES { return functionKey(Int32(value)) }
        return characterKey(UInt32(value))
    }

    private func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_ENTER: return .enter
        case KEY_BTAB: return .backTab
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_RESIZE: return .resize
        case KEY_MOUSE:
            var event = MEVENT()
            guard getmouse(&event) == OK else { return nil }
            if event.bstate & (worldcup_button1_pressed() | worldcup_button1_clicked()) != 0 {
                return .mouseClick(row: Int(event.y), column: Int(event.x))
            }
            if event.bstate & worldcup_button4_pressed() != 0 { return .wheelUp }
            if event.bstate & worldcup_button5_pressed() != 0 { return .wheelDown }
            return nil
        default: return nil
        }
    }

    private func characterKey(_ value: UInt32) -> Key? {
        KeyDecoder.key(forCharacter: value)
    }
}

/// Maps a character from the terminal to a ``Key``: control bytes become named keys.
public enum KeyDecoder {
    public static func key(forCharacter value: UInt32) -> Key? {
        switch value {
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 1...26: return .control(Character(Unicode.Scalar(value + 96)!))
        case 0, 28...31, 0x80...0x9F: return nil
        default:
            guard let scalar = Unicode.Scalar(value) else { return nil }
            return .character(Character(scalar))
        }
    }
}
