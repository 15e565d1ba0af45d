import Foundation
import TerminalUI

/// The tutorial's secret "Add Team" alert: two fields, Team Name and Qualifying Zone.
struct AddTeamDialog {
    enum Field { case name, zone }
    enum Outcome: Equatable {
        case editing
        case cancelled
        case submitted(name: String, zone: String)
    }

    var name = LineEditor()
    var zone = LineEditor()
    var focus = Field.name
    /// Shown in the dialog after a refused save; nothing was saved.
    var problem: String?

    mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .escape:
            return .cancelled
        case .tab, .down, .backTab, .up:
            focus = focus == .name ? .zone : .name
        case .enter:
            let trimmedName = name.text.trimmingCharacters(in: .whitespacesAndNewlines)
            let trimmedZone = zone.text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmedName.isEmpty {
                problem = "Team Name must not be empty."
                focus = .name
            } else if trimmedZone.isEmpty {
                problem = "Qualifying Zone must not be empty."
                focus = .zone
            } else {
                return .submitted(name: trimmedName, zone: trimmedZone)
            }
        default:
            if focus == .name { name.handle(key) } else { zone.handle(key) }
        }
        return .editing
    }
}
