import Foundation
import TerminalUI
import WorldCupModel

/// The tutorial's secret "Add Team" alert: two fields, Team Name and Qualifying Zone.
///
/// The fields edit like a shell line (``LineEditor``); Tab and ↓ go to the zone field, Shift-Tab
/// and ↑ back to the name; Tab in the zone field completes an existing zone's name, and stays.
/// A refused save shows its reason, the focus in the field at fault, until that field changes.
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
    /// The zones already in the store, for completion.
    let zones: [String]
    /// Shown in the dialog after a refused save; nothing was saved.
    private(set) var problem: String?
    /// The field the problem is about; editing it clears the problem.
    private var problemField: Field?

    init(zones: [String] = []) {
        self.zones = zones
    }

    /// The first existing zone that starts with the zone typed so far (ignoring case, as the
    /// store does) and is longer: what Tab completes it to.
    var completedZone: String? {
        let typed = zone.text
        guard !typed.isEmpty else { return nil }
        let folded = NoCase.key(typed)
        return zones.first { NoCase.key($0).hasPrefix(folded) && $0.count > typed.count }
    }

    /// The part of ``completedZone`` not typed yet, shown dimmed after the cursor.
    var zoneCompletion: String? {
        completedZone.map { String($0.dropFirst(zone.text.count)) }
    }

    /// Shows why a save was refused, with the focus in the field at fault: the name, for the
    /// store's refusals (a duplicate name, say); nil keeps the focus (the store is away).
    mutating func refuse(_ reason: String, about field: Field? = .name) {
        problem = reason
        focus = field ?? focus
        problemField = field ?? focus
    }

    mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .escape, .control("c"):
            return .cancelled
        case .tab where focus == .zone:
            // Completes an existing zone, or stays: going round to the name field would send
            // the rest of a new zone's name into the team's name.
            if let completedZone {
                zone = LineEditor(completedZone)
                clearProblem(ifAbout: .zone)
            }
        case .tab, .down:
            focus = .zone
        case .backTab, .up:
            focus = .name
        case .enter:
            let trimmedName = name.text.trimmingCharacters(in: .whitespacesAndNewlines)
            let trimmedZone = zone.text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmedName.isEmpty {
                problem = "Team Name must not be empty."
                (focus, problemField) = (.name, .name)
            } else if trimmedZone.isEmpty {
                problem = "Qualifying Zone must not be empty."
                (focus, problemField) = (.zone, .zone)
            } else {
                return .submitted(name: trimmedName, zone: trimmedZone)
            }
        default:
            let before = (name.text, zone.text)
            if focus == .name { name.handle(key) } else { zone.handle(key) }
            if before.0 != name.text { clearProblem(ifAbout: .name) }
            if before.1 != zone.text { clearProblem(ifAbout: .zone) }
        }
        return .editing
    }

    private mutating func clearProblem(ifAbout field: Field) {
        if problemField == field { (problem, problemField) = (nil, nil) }
    }
}
