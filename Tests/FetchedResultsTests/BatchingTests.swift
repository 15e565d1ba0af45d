import FetchedResultsSQLite
import Foundation
import GRDB
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
        func controller(batchSize: Int) throws -> SQLiteResultsController<Item> {
            let request = TableFetchRequest(
                table: "item",
                sortDescriptors: [
                    ColumnSortDescriptor(key: "grp", collation: .caseInsensitive),
                    ColumnSortDescriptor(key: "score", ascending: false),
                    ColumnSortDescriptor(key: "name"),
                ], fetchBatchSize: batchSize)
            let controller = SQLiteResultsController<Item>(
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
        var paths: [FetchedResults.IndexPath] = []
        for section in 0..<whole.numberOfSections {
            for row in 0..<whole.numberOfObjects(inSection: section) {
                paths.append(FetchedResults.IndexPath(row: row, section: section))
            }
        }
        for path in (0..<500).map({ _ in paths.randomElement(using: &random)! }) + paths {
            #expect(try batched.object(at: path) == whole.object(at: path), "\(path)")
            #expect(batched.loadedRowCount <= 25 * 8, "at most 8 batches are held")
        }
        #expect(try batched.sections!.map(\.name) == whole.sections!.map(\.name))
    }
}
