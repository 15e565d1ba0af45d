import GRDB
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupStores

/// A team read from a row: by position for the table's own columns, by name for any other
/// shape, the same team either way, and a clear error (not a crash) for a value that cannot be.
@Suite struct TeamRecordTests {
    @Test func aTeamReadsTheSameByPositionAndByName() throws {
        let directory = TemporaryDirectory()
        let store = try Fixtures.seededStore(in: directory)
        _ = try store.addTeam(name: "Wenderland", zone: "Internets")
        try store.pool.write { db in
            try db.execute(sql: "UPDATE team SET imageName = NULL, wins = 3 WHERE teamName = 'Ghana'")
        }
        try store.pool.read { db in
            let byPosition = try Team.fetchAll(db, sql: "SELECT * FROM team ORDER BY id")
            let withRowID = try Team.fetchAll(db, sql: "SELECT *, rowid FROM team ORDER BY id")
            let reversedColumns = Team.fields.reversed().map(\.name).joined(separator: ", ")
            let byName = try Team.fetchAll(db, sql: "SELECT \(reversedColumns) FROM team ORDER BY id")
            let columns = try Row.fetchAll(db, sql: "SELECT * FROM team ORDER BY id").map { row in
                Team(
                    id: row["id"], teamName: row["teamName"], qualifyingZone: row["qualifyingZone"],
                    imageName: row["imageName"], wins: row["wins"])
            }
            #expect(byPosition.count == 33)
            #expect(byPosition == columns)
            #expect(byName == columns)
            #expect(withRowID == columns)
            #expect(byPosition.first { $0.teamName == "Ghana" }?.imageName == nil)
            #expect(byPosition.first { $0.teamName == "Ghana" }?.wins == 3)
            #expect(throws: (any Error).self) {
                try Team.fetchOne(db, sql: "SELECT id, NULL AS teamName, qualifyingZone, imageName, wins FROM team")
            }
        }
    }
}
