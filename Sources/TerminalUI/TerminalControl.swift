/// What a program asks of its terminal besides drawing: to paint everything again, and to give
/// the terminal back for a while (Ctrl-Z).
public protocol TerminalControl: AnyObject {
    /// Forgets what is on the physical screen, so the next frame paints everything.
    func invalidate()
    /// Gives the terminal back and stops the process until it is resumed (`fg`).
    func suspend()
}

extension CursesTerminal: TerminalControl {}
