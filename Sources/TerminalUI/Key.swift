/// One decoded input event: a key, a mouse event, or a terminal resize.
public enum Key: Equatable, Sendable {
    case character(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, tab, backTab, escape
    case backspace, delete
    /// Ctrl plus a letter, lowercased ("c" for Ctrl-C).
    case control(Character)
    case mouseClick(row: Int, column: Int)
    case wheelUp, wheelDown
    case resize
}
