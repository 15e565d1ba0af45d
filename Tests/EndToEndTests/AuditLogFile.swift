import Foundation

/// What a scoreboard's audit log (`--log FILE`) says it committed: one line per change, five
/// tab-separated fields (time, action, score key, team id, name).
struct AuditLogFile {
    struct Entry {
        var time: String
        var action: String
        var key: String
        var teamID: Int64?
        var name: String
    }

    let path: String

    /// Every whole line, in order; none while the file does not exist.
    var entries: [Entry] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let field = { (index: Int) in index < fields.count ? fields[index] : "" }
            return Entry(time: field(0), action: field(1), key: field(2), teamID: Int64(field(3)), name: field(4))
        }
    }

    /// The teams of the logged wins, in order.
    var wins: [String] { entries.filter { $0.action == "win" }.map(\.name) }
}
