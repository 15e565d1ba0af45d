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
            return "TERM is not set, so a full-screen program cannot drive this terminal. "
                + "Set it (for example TERM=xterm-256color)."
        case let .unsupportedTerminal(name):
            return "the terminal type \"\(name)\" cannot show a full-screen program (unknown, or no cursor movement). "
                + "Set TERM to your terminal's type (for example xterm-256color)."
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
    /// The colours drawn with; nil without colours.
    private let palette: Palette?
    /// The background query timed out: a late reply is still to be read and thrown away.
    private var awaitsLateReply: Bool
    private var stopped = false
    private var cursorVisible: Bool?

    /// How long the start waits for the terminal to say its background. The query ends with one
    /// every terminal answers, so only a terminal that answers nothing at all waits this long,
    /// and a reply later than this is thrown away.
    static let backgroundQueryMilliseconds = 250

    /// Takes over the terminal on stdin/stdout.
    ///
    /// - Parameter colors: use colours when the terminal has them (pass false for `NO_COLOR`).
    public static func start(colors: Bool) throws -> CursesTerminal {
        // The environment's locale first, then the UTF-8 fallback for the character type, so that
        // newterm already sees UTF-8 (the other order would undo the fallback when LANG is unset).
        setlocale(LC_ALL, "")
        TextWidth.prepareLocale()
        guard let term = getenv("TERM").map({ String(cString: $0) }), !term.isEmpty else {
            throw TerminalError.termUnset
        }
        // Asked before curses owns the input, so the replies cannot reach it as keys.
        var reply = BackgroundReply([])
        if colors && term != "dumb" {
            reply = BackgroundReply.ask(
                input: STDIN_FILENO, output: STDOUT_FILENO,
                timeoutMilliseconds: backgroundQueryMilliseconds)
        }
        let background = colors ? Self.background(reply: reply, term: term) : nil
        TerminalRestore.saveModes()
        // Own FILE streams on descriptors 1 and 0: the C globals stdout/stdin are not concurrency-safe in Swift 6.
        guard term != "dumb", let output = fdopen(STDOUT_FILENO, "w"), let input = fdopen(STDIN_FILENO, "r"),
            let screen = newterm(nil, output, input)
        else { throw TerminalError.unsupportedTerminal(term) }
        set_term(screen)
        guard let cup = tigetstr("cup"), Int(bitPattern: cup) != -1 else {
            endwin()
            delscreen(screen)
            TerminalRestore.restoreFromSignal()
            throw TerminalError.unsupportedTerminal(term)
        }
        TerminalRestore.save(resetSequence: Self.resetSequence())
        TerminalRestore.installSignalHandlers()
        // Keys typed while the terminal was asked are keys all the same.
        for byte in reply.otherBytes.reversed() { ungetch(Int32(byte)) }
        return CursesTerminal(
            screen: screen, colors: colors, background: background,
            awaitsLateReply: colors && term != "dumb" && !reply.isComplete)
    }

    /// The terminal's background: its answer to OSC 11, else `COLORFGBG`, else dark for the
    /// Linux console (always dark), else unknown.
    static func background(reply: BackgroundReply, term: String) -> TerminalBackground? {
        reply.background
            ?? getenv("COLORFGBG").flatMap { TerminalBackground(colorFGBG: String(cString: $0)) }
            ?? (term == "linux" ? .dark : nil)
    }

    private init(screen: OpaquePointer, colors: Bool, background: TerminalBackground?, awaitsLateReply: Bool) {
        self.screen = screen
        self.awaitsLateReply = awaitsLateReply
        window = worldcup_stdscr()
        raw()
        noecho()
        nonl()
        keypad(window, true)
        set_escdelay(Self.escapeDelayMilliseconds)
        mouseinterval(0)
        mousemask(Self.mouseEvents, nil)
        if colors && has_colors() {
            start_color()
            use_default_colors()
            let palette = Palette(
                background: background, colors: Int(worldcup_colors()),
                erasesInColor: tigetflag("bce") > 0)
            init_pair(Self.accentPair, palette.accent, -1)
            init_pair(Self.subduedPair, palette.subdued ?? -1, -1)
            if let bar = palette.bar { init_pair(Self.barPair, bar.foreground, bar.background) }
            init_pair(Self.flashPair, palette.flash.foreground, palette.flash.background)
            if let stripe = palette.stripe { init_pair(Self.stripePair, -1, stripe) }
            self.palette = palette
        } else {
            palette = nil
        }
    }

    /// How long an ESC waits for the rest of a sequence before it is a lone Esc (ESCDELAY).
    static let escapeDelayMilliseconds: Int32 = 25

    private static let accentPair: Int16 = 1
    private static let subduedPair: Int16 = 2
    private static let barPair: Int16 = 3
    private static let flashPair: Int16 = 4
    private static let stripePair: Int16 = 5

    private static func pair(_ number: Int16) -> attr_t { attr_t(worldcup_color_pair(Int32(number))) }

    /// Clicks and the wheel.
    private static var mouseEvents: mmask_t {
        worldcup_button1_pressed() | worldcup_button1_clicked() | worldcup_button4_pressed()
            | worldcup_button5_pressed()
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

    /// A cell has one colour pair: the bar's wins over the flash, the flash over the accent,
    /// the accent over grey, grey over a stripe. Bold is left out on a pair whose text bold
    /// would turn bright (black to grey); the underline still marks such text.
    private func attributes(for style: TextStyle) -> attr_t {
        var attributes: attr_t = 0
        var bold = style.contains(.bold)
        if style.contains(.reverse) {
            if let bar = palette?.bar {
                attributes |= Self.pair(Self.barPair)
                bold = bold && Palette.boldKeepsColours(foreground: bar.foreground)
            } else {
                attributes |= worldcup_a_reverse()
            }
        } else if style.contains(.flash) {
            if let palette {
                attributes |= Self.pair(Self.flashPair)
                bold = bold && Palette.boldKeepsColours(foreground: palette.flash.foreground)
            } else {
                bold = true
            }
        } else if style.contains(.accent), palette != nil {
            attributes |= Self.pair(Self.accentPair)
        } else if style.contains(.dim) {
            attributes |= palette?.subdued == nil ? attr_t(worldcup_a_dim()) : Self.pair(Self.subduedPair)
        } else if style.contains(.stripe), palette?.stripe != nil {
            attributes |= Self.pair(Self.stripePair)
        }
        if bold { attributes |= worldcup_a_bold() }
        if style.contains(.underline) { attributes |= worldcup_a_underline() }
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

    /// What woke a loop, of the terminal's.
    public enum Wake: Equatable {
        case key(Key)
        /// The terminal went away (hung up, closed): no key will ever come.
        case inputClosed
        /// A stop signal (SIGTERM, SIGHUP, SIGINT) arrived: the program should save its work and
        /// stop. A second one ends the process at once, the terminal restored.
        case stopSignal(Int32)
    }

    /// The descriptors a loop waits on for the terminal (its input, and the pipe the stop
    /// signals write to), beside its own: the loop's one `poll` sleeps on all of them.
    public var waitDescriptors: [Int32] { [STDIN_FILENO, TerminalRestore.stopSignalDescriptor] }

    /// What the terminal has already, before any wait: a stop signal, or a key curses read
    /// ahead of the kernel's buffer (the rest of a burst), which no `poll` would announce.
    public func pendingWake() -> Wake? {
        if let signal = TerminalRestore.receivedStopSignal() { return .stopSignal(signal) }
        return readKey(timeoutMilliseconds: 0).map(Wake.key)
    }

    /// What woke a wait on ``waitDescriptors``, given those it found readable — also after a
    /// wait a signal interrupted, with none: a resize makes curses report `KEY_RESIZE` — or nil
    /// when nothing of the terminal's did. A stop signal wins over a key.
    public func wake(readable: Set<Int32>) -> Wake? {
        if let wake = pendingWake() { return wake }
        if readable.contains(STDIN_FILENO), inputIsClosed { return .inputClosed }
        return nil
    }

    /// Whether the terminal's input hung up or failed.
    private var inputIsClosed: Bool {
        var input = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        return poll(&input, 1, 0) > 0 && input.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
    }

    /// The next key, or nil when `timeoutMilliseconds` pass without one (-1 waits forever).
    public func readKey(timeoutMilliseconds: Int32) -> Key? {
        wtimeout(window, timeoutMilliseconds)
        var value: wint_t = 0
        let result = wget_wch(window, &value)
        if result == ERR { return nil }
        if result == KEY_CODE_YES { return functionKey(Int32(value)) }
        if value == 0x1B { return awaitsLateReply ? escapeOrLateReply() : escapeSequence() }
        return characterKey(UInt32(value))
    }

    /// An ESC that starts no key the terminal type defines (curses matched none): what follows
    /// it, read whole — a key sent as another terminal sends it (tmux's End under
    /// `TERM=xterm-256color`), mapped; an Alt chord or an unknown sequence, ignored (nil); or
    /// nothing, a lone Esc. Curses has waited ESCDELAY for what follows the ESC already, and a
    /// terminal sends a key's sequence in one write: what belongs to it is there at once, and
    /// what is not there is not waited for (it is the next key, typed by a person).
    private func escapeSequence() -> Key? {
        var sequence = EscapeSequence()
        while true {
            wtimeout(window, 0)
            var value: wint_t = 0
            let result = wget_wch(window, &value)
            if result == ERR { return sequence.finish() }
            if result == KEY_CODE_YES {
                // A resize or a click is no part of a sequence: the ESC before it stands alone.
                // Any other key curses decoded right after an ESC is that key with Alt: ignored.
                let code = Int32(value)
                guard code == KEY_RESIZE || code == KEY_MOUSE || !sequence.characters.isEmpty else { return nil }
                ungetch(code)
                return sequence.finish()
            }
            switch sequence.add(UInt32(value)) {
            case .needsMore: continue
            case let .done(key): return key
            case .endedBeforeLast:
                unget_wch(wchar_t(value))
                return nil
            }
        }
    }

    /// An ESC while a reply to the background query may still come (the terminal took longer
    /// than the start waited): a reply is read whole and thrown away (nil), so it never acts as
    /// keys (its ESC would quit); anything else is put back and read as what follows an ESC.
    private func escapeOrLateReply() -> Key? {
        var bytes: [UInt8] = [0x1B]
        while true {
            // A reply comes in one write: its rest is there at once.
            wtimeout(window, 50)
            var value: wint_t = 0
            let result = wget_wch(window, &value)
            guard result == OK, value < 0x80 else {
                if result == KEY_CODE_YES { ungetch(Int32(value)) } else if result == OK { unget_wch(wchar_t(value)) }
                for byte in bytes.dropFirst().reversed() { ungetch(Int32(byte)) }
                return escapeSequence()
            }
            bytes.append(UInt8(value))
            let reply = BackgroundReply(bytes)
            if !reply.otherBytes.isEmpty {
                for byte in bytes.dropFirst().reversed() { ungetch(Int32(byte)) }
                return escapeSequence()
            }
            if reply.isComplete { awaitsLateReply = false }
            if reply.isComplete || reply.hasColorReply { return nil }
        }
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
