import ControllerOracles
import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

/// With a batch size, the controller holds every row's order but only a few batches of full
/// rows, and returns exactly what a fetch without batches returns.
@Suite struct BatchingTests {
    @Test func batchedObjectsEqualUnbatchedOnesWithBoundedRowsInMemory() throws {
        let (pool, _) = try makeItemDatabase()
        var random = SplitMix64(seed: 4)
        try pool.write { db in
            for index in 0..<2000 {
                try db.execute(
                    sql: "INSERT INTO item (grp, score, name, note) VALUES (?, ?, ?, ?)",
                    arguments: [
                        ["Asia", "europe", "Europe", nil, "Zone"].randomElement(using: &random)!,
                        Int.random(in: 0..<30, using: &random), "name \(index % 300)", "note \(index)",
                    ])
            }
        }
        func controller(batchSize: Int) throws -> FetchedResultsController<Item> {
            let request = TableFetchRequest(
                table: "item",
                sortDescriptors: [
                    ColumnSortDescriptor(key: "grp", collation: .caseInsensitive),
                    ColumnSortDescriptor(key: "score", ascending: false),
                    ColumnSortDescriptor(key: "name"),
                ], fetchBatchSize: batchSize)
            let controller = FetchedResultsController<Item>(
                fetchRequest: request, database: pool, sectionNameKeyPath: "grp")
            try controller.performFetch()
            return controller
        }
        let whole = try controller(batchSize: 0)
        let batched = try controller(batchSize: 25)
        #expect(whole.loadedRowCount == 2000)
        #expect(batched.loadedRowCount == 0, "nothing is loaded before it is asked for")
        #expect(batched.numberOfSections == whole.numberOfSections)

        // Random access all over the results, then every object in order.
        var paths: [IndexPath] = []
        for section in 0..<whole.numberOfSections {
            for row in 0..<whole.numberOfObjects(inSection: section) {
                paths.append(IndexPath(row: row, section: section))
            }
        }
        for path in (0..<500).map({ _ in paths.randomElement(using: &random)! }) + paths {
            #expect(try batched.object(at: path) == whole.object(at: path), "\(path)")
            #expect(batched.loadedRowCount <= 25 * 8, "at most 8 batches are held")
        }
        #expect(try batched.sections!.map(\.name) == whole.sections!.map(\.name))
    }

    /// A row a look read afresh reads as the look saw it until the next look, even when its
    /// batch was not held: an object asked for right after a change set is the row the change
    /// set describes, not a later commit's (serve encodes each change set's rows so).
    @Test func aChangedRowReadsAsTheLookSawItUntilTheNextLook() throws {
        let items = try ItemsInBatches()
        #expect(items.controller.loadedRowCount == 0, "no batch held")
        try items.setNote("first", ofRow: 150)
        #expect(try items.controller.processPendingChanges())
        try items.setNote("second", ofRow: 150)  // another commit, not looked at yet
        #expect(try items.note(ofRow: 150) == "first")
        #expect(try items.controller.processPendingChanges())
        #expect(try items.note(ofRow: 150) == "second")
    }

    /// Rows a look keeps aside are no batch of their own: looks at rows far from the screen,
    /// more of them than batches are kept, push out none of the batches the screen shows.
    @Test func rowsALookKeepsPushOutNoBatch() throws {
        let items = try ItemsInBatches()
        _ = try items.note(ofRow: 0)
        #expect(items.controller.loadedRowCount == 10, "the screen's batch")
        for row in 100..<120 {  // twenty looks; the controller keeps 8 batches
            try items.setNote("seen", ofRow: row)
            #expect(try items.controller.processPendingChanges())
        }
        #expect(items.controller.loadedRowCount == 10, "the screen's batch is still the only one held")
        try items.setNote("later", ofRow: 119)
        #expect(try items.note(ofRow: 119) == "seen", "the last look's row, kept aside")
        #expect(items.controller.loadedRowCount == 10, "read from the rows kept aside, not from a batch")
    }

    /// A row kept aside and then loaded with its batch, later than the look, is the batch's
    /// copy: once that batch is pushed out, the row is read again, never the look's older copy.
    @Test func aRowKeptAsideThenLoadedNeverGoesBackInTime() throws {
        let items = try ItemsInBatches()
        try items.setNote("first", ofRow: 150)
        #expect(try items.controller.processPendingChanges())
        try items.setNote("second", ofRow: 150)
        _ = try items.note(ofRow: 151)  // a neighbour loads the row's batch, with the second note
        #expect(try items.note(ofRow: 150) == "second")
        for batch in 0..<10 { _ = try items.note(ofRow: batch * 10) }
        #expect(try items.note(ofRow: 150) == "second", "pushed out, then read again")
    }

    /// The bound on the rows a look keeps aside counts the rows of batches not held: a look
    /// of more rows than a batch, most of them held, still keeps its few others.
    @Test func aLookOfManyHeldRowsKeepsItsOtherRowsAside() throws {
        let items = try ItemsInBatches()
        _ = try items.note(ofRow: 0)
        let far = items.controller.rowID(at: items.path(150))
        // The screen's ten rows and one far away: eleven rows, one more than a batch.
        try items.pool.write { db in
            try db.execute(sql: "UPDATE item SET note = 'first' WHERE score < 10 OR id = ?", arguments: [far])
        }
        #expect(try items.controller.processPendingChanges())
        try items.setNote("second", ofRow: 150)
        #expect(try items.note(ofRow: 150) == "first")
        #expect(try items.note(ofRow: 0) == "first")
    }

    @Test func runsOfRowsReadAtOnceEqualRowByRowAndPushOutNoBatch() throws {
        let (pool, _) = try makeItemDatabase()
        var random = SplitMix64(seed: 11)
        try pool.write { db in
            for index in 0..<1500 {
                try db.execute(
                    sql: "INSERT INTO item (grp, score, name, note) VALUES (?, ?, ?, ?)",
                    arguments: [
                        ["Asia", "Europe", "Zone"].randomElement(using: &random)!, index % 40, "n\(index)", "",
                    ])
            }
        }
        let request = TableFetchRequest(
            table: "item", sortDescriptors: [ColumnSortDescriptor(key: "grp"), ColumnSortDescriptor(key: "score")],
            fetchBatchSize: 25)
        let controller = FetchedResultsController<Item>(
            fetchRequest: request, database: pool, sectionNameKeyPath: "grp")
        try controller.performFetch()
        _ = try controller.object(at: IndexPath(row: 0, section: 0))
        let held = controller.loadedRowCount

        for section in 0..<controller.numberOfSections {
            let count = controller.numberOfObjects(inSection: section)
            var runs = [0..<count, 0..<0, (count - 1)..<count]
            for _ in 0..<20 {
                let start = Int.random(in: 0..<count, using: &random)
                runs.append(start..<Int.random(in: start...count, using: &random))
            }
            for run in runs {
                let rowByRow = try run.map {
                    try controller.object(at: IndexPath(row: $0, section: section))
                }
                let held = controller.loadedRowCount
                #expect(try controller.objectsIfPresent(inSection: section, rows: run) == rowByRow, "\(section) \(run)")
                #expect(controller.loadedRowCount == held, "a run read at once keeps none of its rows")
            }
        }
        #expect(held > 0)

        // A row deleted by another writer and not yet seen is left out, not an error.
        let gone = controller.rowID(at: IndexPath(row: 3, section: 0))
        let before = try controller.objectsIfPresent(inSection: 0, rows: 0..<10)
        try pool.write { try $0.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [gone]) }
        let after = try controller.objectsIfPresent(inSection: 0, rows: 0..<10)
        #expect(after.count == 9)
        #expect(after == before.filter { $0.id != gone })
    }
}

/// 200 items in one section, scored 0 to 199, and a controller that follows them in batches of
/// 10, none held yet: what the tests of a look's rows and the screen's batches start from.
private struct ItemsInBatches {
    let pool: DatabasePool
    let controller: FetchedResultsController<Item>
    /// The controller's delegate (a weak reference), held as long as the controller.
    let log = CallbackLog<Item>()

    init() throws {
        (pool, _) = try makeItemDatabase()
        try pool.write { db in
            for index in 0..<200 {
                try db.execute(
                    sql: "INSERT INTO item (grp, score, name, note) VALUES ('Asia', ?, ?, '')",
                    arguments: [index, "n\(index)"])
            }
        }
        let request = TableFetchRequest(
            table: "item", sortDescriptors: [ColumnSortDescriptor(key: "score")], fetchBatchSize: 10)
        controller = FetchedResultsController<Item>(fetchRequest: request, database: pool)
        controller.delegate = log
        try controller.performFetch()
    }

    func path(_ row: Int) -> IndexPath { IndexPath(row: row, section: 0) }

    /// Commits a new note for the item at `row` (as the controller last saw the order).
    func setNote(_ note: String, ofRow row: Int) throws {
        let id = controller.rowID(at: path(row))
        try pool.write { try $0.execute(sql: "UPDATE item SET note = ? WHERE id = ?", arguments: [note, id]) }
    }

    /// The note of the object at `row`, read through the controller.
    func note(ofRow row: Int) throws -> String { try controller.object(at: path(row)).note }
}
