import FetchedResults

/// One random transaction being built over the `item` table that both stores' oracle tests use
/// (`id`, `grp`, `score`, `name`, `note`, `visible`, unique `code`): the steps every store takes
/// the same way. Each store's workload draws a choice and adds its own steps for the choices
/// ``commonStep(_:on:random:)`` leaves (SQLite's `REPLACE`, PostgreSQL's re-keying).
///
/// Statements carry literal values, so that a shell in another process can run them.
public struct ItemWorkload {
    public static let groups: [String?] = ["Africa", "africa", "Asia", "Europe", "Internets", "日本", "Zone", nil]
    public static let names = [
        "alpha", "Alpha", "beta", "Émile", "émile", "zeta", "Z", "a", "日本", "ß", "", "Ωmega",
    ]
    public static let codes = ["c1", "c2", "c3", "c4"]

    /// The order most tests of the table fetch in: groups ignoring case, the score descending,
    /// names ignoring case.
    public static let standings = [
        ColumnSortDescriptor(key: "grp", collation: .caseInsensitive),
        ColumnSortDescriptor(key: "score", ascending: false),
        ColumnSortDescriptor(key: "name", collation: .caseInsensitive),
    ]

    /// The inserts of `count` random rows, ids from 1 on: a table to start from.
    public static func inserts(_ count: Int, random: inout SplitMix64) -> [String] {
        var workload = ItemWorkload(itemIDs: [])
        for _ in 0..<count { _ = workload.commonStep(0, on: nil, random: &random) }
        return workload.statements
    }

    /// The ids of the rows the transaction leaves, so far.
    public var ids: [Int64]
    /// An id no row has.
    public var nextID: Int64
    public var statements: [String] = []

    public init(itemIDs: [Int64]) {
        ids = itemIDs
        nextID = (itemIDs.max() ?? 0) + 1
    }

    /// A text value as an SQL literal (nil: NULL).
    public static func literal(_ value: String?) -> String {
        value.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL"
    }

    /// Takes the step for `choice` on the row `target` if it is a shared one — an insert for
    /// choices 0–2 or when there is no row, else for 3–8 a delete, or an update of the score
    /// (sort), the group (section), the name (sort, text), the note (plain column) or the
    /// visibility (predicate) — and says whether it did.
    public mutating func commonStep(_ choice: Int, on target: Int64?, random: inout SplitMix64) -> Bool {
        switch (choice, target) {
        case (0...2, _), (_, nil):
            let score = Int.random(in: 0..<8, using: &random) == 0 ? nil : Int.random(in: 0...5, using: &random)
            let values = [
                String(nextID), Self.literal(Self.groups.randomElement(using: &random)!),
                score.map(String.init) ?? "NULL",
                Self.literal(Self.names.randomElement(using: &random)!), "''",
                Int.random(in: 0..<5, using: &random) == 0 ? "0" : "1",
            ]
            statements.append(
                "INSERT INTO item (id, grp, score, name, note, visible) VALUES (\(values.joined(separator: ", ")))")
            takeNextID()
        case (3, let id?):
            statements.append("DELETE FROM item WHERE id = \(id)")
            ids.removeAll { $0 == id }
        case (4, let id?):
            statements.append("UPDATE item SET score = coalesce(score, 0) + 1 WHERE id = \(id)")
        case (5, let id?):
            statements.append(
                "UPDATE item SET grp = \(Self.literal(Self.groups.randomElement(using: &random)!)) WHERE id = \(id)")
        case (6, let id?):
            statements.append(
                "UPDATE item SET name = \(Self.literal(Self.names.randomElement(using: &random)!)) WHERE id = \(id)")
        case (7, let id?):
            statements.append("UPDATE item SET note = note || 'x' WHERE id = \(id)")
        case (8, let id?):
            statements.append("UPDATE item SET visible = 1 - visible WHERE id = \(id)")
        default:
            return false
        }
        return true
    }

    /// One random transaction over the rows with these ids, rolled back when `rollback`: one to
    /// four steps, each on a random row, drawn from `choices` choices. A choice
    /// ``commonStep(_:on:random:)`` leaves goes to `storeStep` (the row is then not nil), which
    /// says whether it took it; a choice nobody takes touches the row.
    public static func transaction(
        itemIDs: [Int64], rollback: Bool, choices: Int, random: inout SplitMix64,
        storeStep: (inout ItemWorkload, _ choice: Int, _ row: Int64, inout SplitMix64) -> Bool
    ) -> RandomTransaction {
        var step = ItemWorkload(itemIDs: itemIDs)
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let target = step.ids.randomElement(using: &random)
            let choice = Int.random(in: 0..<choices, using: &random)
            if step.commonStep(choice, on: target, random: &random) { continue }
            guard let id = target else { preconditionFailure("a step without a row is an insert") }
            if !storeStep(&step, choice, id, &random) { step.touch(id) }
        }
        return RandomTransaction(statements: step.statements, rollback: rollback)
    }

    /// Touches the row without changing it: it must produce no callback by itself.
    public mutating func touch(_ id: Int64) {
        statements.append("UPDATE item SET score = score WHERE id = \(id)")
    }

    /// Records that a statement gave a row ``nextID``.
    public mutating func takeNextID() {
        ids.append(nextID)
        nextID += 1
    }
}

/// A random transaction as SQL text with literal values, for a connection of this process or a
/// shell in another process.
public struct RandomTransaction: Sendable {
    public var statements: [String]
    /// Whether it ends in a rollback instead of a commit.
    public var rollback: Bool

    public init(statements: [String], rollback: Bool) {
        self.statements = statements
        self.rollback = rollback
    }

    /// The transaction as one script for a shell, opened by `begin`.
    public func script(begin: String = "BEGIN") -> String {
        ([begin] + statements + [rollback ? "ROLLBACK" : "COMMIT"]).joined(separator: ";\n") + ";"
    }
}
