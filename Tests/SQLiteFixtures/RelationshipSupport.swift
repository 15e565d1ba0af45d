import FetchedResultsSQLite
import Foundation
import GRDB
import TestSupport

/// Seed 001's example: content items, each in a bucket (a to-one relationship through
/// `bucketId`). There is no foreign-key constraint, so an item may refer to a bucket that does
/// not exist (yet, or any more).
public struct Content: FetchableRecord, Equatable, Sendable {
    public var id: Int64
    public var title: String
    public var created: Int
    public var bucketId: Int64?
    /// The related values, read from the columns named after their key paths.
    public var bucketName: String?
    public var bucketColor: String?

    public init(row: Row) {
        id = row["id"]
        title = row["title"]
        created = row["created"]
        bucketId = row["bucketId"]
        bucketName = row["bucket.name"]
        bucketColor = row["bucket.color"]
    }
}

/// A store with buckets and content, and change history on both tables.
public func makeBucketDatabase(foreignKey: Bool = false) throws -> (DatabasePool, String) {
    let path = temporaryPath("fetched-results-", suffix: ".sqlite")
    let pool = try DatabasePool(path: path)
    try pool.write { db in
        try db.execute(
            sql: """
                CREATE TABLE bucket (id INTEGER PRIMARY KEY, name TEXT, color TEXT, note TEXT NOT NULL DEFAULT '');
                CREATE TABLE content (id INTEGER PRIMARY KEY, title TEXT NOT NULL, created INTEGER NOT NULL,
                                      bucketId INTEGER \(foreignKey ? "REFERENCES bucket(id) ON DELETE SET NULL" : ""));
                CREATE INDEX content_bucket ON content(bucketId);
                """)
        try ChangeHistory.install(on: "content", in: db)
        try ChangeHistory.install(on: "bucket", in: db)
    }
    return (pool, path)
}

/// Random writes to both tables: buckets renamed (sometimes to a name differing only in case,
/// or to the same name), recoloured, re-noted, inserted and deleted (leaving items that refer to
/// nothing, which a later insert with that id resolves); items inserted, deleted, moved between
/// buckets and re-dated.
public enum RelationshipWorkload {
    public static let bucketNames: [String?] = ["Inbox", "inbox", "Work", "Trips", "Été", "日本", nil]
    public static let colors: [String?] = ["red", "green", "blue", nil]

    public static func transaction(contentIDs: [Int64], random: inout SplitMix64) -> RandomTransaction {
        let rollback = Int.random(in: 0..<10, using: &random) == 0
        var statements: [String] = []
        // Bucket ids are drawn from a small range, so deleted ids come back.
        let someBucket = { (random: inout SplitMix64) in Int64.random(in: 1...8, using: &random) }
        var nextContent = (contentIDs.max() ?? 0) + 1
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let content = contentIDs.randomElement(using: &random)
            switch Int.random(in: 0..<12, using: &random) {
            case 0:
                let id = someBucket(&random)
                statements.append(
                    "INSERT OR REPLACE INTO bucket (id, name, color) VALUES (\(id), "
                        + "\(ItemWorkload.literal(bucketNames.randomElement(using: &random)!)), "
                        + "\(ItemWorkload.literal(colors.randomElement(using: &random)!)))")
            case 1:
                statements.append("DELETE FROM bucket WHERE id = \(someBucket(&random))")
            case 2, 3:
                statements.append(
                    "UPDATE bucket SET name = \(ItemWorkload.literal(bucketNames.randomElement(using: &random)!)) "
                        + "WHERE id = \(someBucket(&random))")
            case 4:
                statements.append(
                    "UPDATE bucket SET color = \(ItemWorkload.literal(colors.randomElement(using: &random)!)) "
                        + "WHERE id = \(someBucket(&random))")
            case 5:
                // A column no key path names: never a callback by itself.
                statements.append("UPDATE bucket SET note = note || 'x' WHERE id = \(someBucket(&random))")
            case 6, 7:
                statements.append(
                    "INSERT INTO content (id, title, created, bucketId) VALUES (\(nextContent), "
                        + "'item \(nextContent)', \(Int.random(in: 0...20, using: &random)), \(someBucket(&random)))")
                nextContent += 1
            case 8 where content != nil:
                statements.append("DELETE FROM content WHERE id = \(content!)")
            case 9 where content != nil:
                statements.append("UPDATE content SET bucketId = \(someBucket(&random)) WHERE id = \(content!)")
            case 10 where content != nil:
                statements.append(
                    "UPDATE content SET created = \(Int.random(in: 0...20, using: &random)) WHERE id = \(content!)")
            default:
                statements.append("UPDATE bucket SET name = name WHERE id = \(someBucket(&random))")
            }
        }
        return RandomTransaction(statements: statements, rollback: rollback)
    }
}
