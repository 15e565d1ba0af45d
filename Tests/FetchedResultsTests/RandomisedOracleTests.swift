import TestSupport
import FetchedResults
import Foundation
import GRDB
import Testing

/// Thousands of random transactions; after each one the controller must equal a fresh fetch by
/// SQLite, and every callback style must turn the old state into exactly the new state.
@Suite struct RandomisedOracleTests {
    enum Writer: Sendable {
        /// Writes through the controller's own pool: changes arrive at commit.
        case local
        /// Writes through the pool with change history installed: changes arrive at commit, via the history.
        case localWithHistory
        /// Writes through a separate connection, which the controller cannot observe (like
        /// another process): changes arrive through the history when the app polls, and the
        /// history is sometimes pruned before that, forcing a refetch and diff.
        case otherConnection
    }

    struct Configuration: Sendable, CustomTestStringConvertible {
        let label: String
        let request: TableFetchRequest
        let sectioned: Bool
        let transactions: Int
        var writer = Writer.local
        var testDescription: String { label }
    }

    static let standings = [
        ColumnSortDescriptor(key: "grp", ascending: true, collation: .noCase),
        ColumnSortDescriptor(key: "score", ascending: false),
        ColumnSortDescriptor(key: "name", ascending: true, collation: .noCase),
    ]

    static let configurations: [Configuration] = [
        .init(label: "sections, predicate", request: TableFetchRequest(table: "item", predicate: "visible = 1", sortDescriptors: standings),
              sectioned: true, transactions: 2000),
        .init(label: "no sections, binary names", request: TableFetchRequest(table: "item", predicate: "visible = ?", arguments: [1.databaseValue],
              sortDescriptors: [ColumnSortDescriptor(key: "name"), ColumnSortDescriptor(key: "score", ascending: false)]),
              sectioned: false, transactions: 1000),
        .init(label: "window limit 7 offset 3", request: TableFetchRequest(table: "item", predicate: "visible = 1", sortDescriptors: standings,
              fetchLimit: 7, fetchOffset: 3), sectioned: true, transactions: 1000),
        .init(label: "history, local writer", request: TableFetchRequest(table: "item", predicate: "visible = 1", sortDescriptors: standings),
              sectioned: true, transactions: 600, writer: .localWithHistory),
        .init(label: "history, writer on another connection, pruning", request: TableFetchRequest(
              table: "item", predicate: "visible = 1", sortDescriptors: standings),
              sectioned: true, transactions: 1000, writer: .otherConnection),
        .init(label: "batches of 3, local writer", request: TableFetchRequest(table: "item", predicate: "visible = 1", sortDescriptors: standings,
              fetchBatchSize: 3), sectioned: true, transactions: 800),
        .init(label: "batches of 3, writer on another connection, pruning", request: TableFetchRequest(
              table: "item", predicate: "visible = 1", sortDescriptors: standings, fetchBatchSize: 3),
              sectioned: true, transactions: 800, writer: .otherConnection),
    ]

    @Test(arguments: configurations)
    func everyCommitMatchesAFreshFetchAndEveryCallbackStyleReplays(configuration: Configuration) throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["FETCHED_RESULTS_SEED"] ?? "") ?? 20261122
        print("RandomisedOracleTests[\(configuration.label)] seed \(seed)")
        var random = SplitMix64(seed: seed)
        let (pool, path) = try makeItemDatabase(history: configuration.writer != .local)
        let otherConnection = configuration.writer == .otherConnection ? try DatabaseQueue(path: path) : nil
        let writer: any DatabaseWriter = otherConnection ?? pool
        let request = configuration.request
        let controller = FetchedResultsController<Item>(
            fetchRequest: request, database: pool, sectionNameKeyPath: configuration.sectioned ? "grp" : nil)
        let recorder = Recorder()
        controller.delegate = recorder
        controller.changeStyles = [.changes, .snapshot, .difference]
        try controller.performFetch()

        var limitClause = ""
        if request.fetchLimit > 0 || request.fetchOffset > 0 {
            limitClause = " LIMIT \(request.fetchLimit > 0 ? request.fetchLimit : -1) OFFSET \(request.fetchOffset)"
        }
        let orderBy = request.sortDescriptors.map { "\($0.key) COLLATE \($0.collation.rawValue)\($0.ascending ? "" : " DESC")" }.joined(separator: ", ")
        let oracleSQL = "SELECT * FROM item WHERE \(request.predicate!) ORDER BY \(orderBy), id\(limitClause)"
        let arguments = StatementArguments(request.predicateArguments)
        func oracle() throws -> SectionedState {
            try pool.read { db in try SectionedState.query(db, sql: oracleSQL, arguments: arguments, sectioned: configuration.sectioned) }
        }

        var state = try oracle()
        var callbackBatches = 0
        for step in 0..<configuration.transactions {
            recorder.reset()
            let rolledBack = try RandomWorkload.transaction(writer, random: &random)
            if otherConnection != nil {
                if step % 97 == 96 { try writer.write { db in try ChangeHistory.prune(keeping: 0, in: db) } }
                try controller.processExternalChanges()
            }
            let newState = try oracle()
            let context = "seed \(seed), step \(step)"

            // (1) The controller equals SQLite's own order.
            let mine = controller.sections!.map { ($0.name, $0.objects.map(\.id!)) }
            let controllerState = SectionedState(
                sections: mine, content: Dictionary(uniqueKeysWithValues: controller.fetchedObjects!.map { ($0.id!, $0) }))
            try #require(controllerState == newState, "\(context): controller \(controllerState) ≠ fetch \(newState)")

            let batched = request.fetchBatchSize > 0
            if rolledBack || (state == newState && !batched) {
                // Nothing visible changed (or the work was rolled back): no callback at all.
                try #require(recorder.batches.isEmpty && recorder.snapshots.isEmpty, "\(context): callbacks without a visible change")
                state = newState
                continue
            }
            if state == newState {
                // With batches, a row written without change whose old values were not loaded
                // is reported as updated; nothing else may be reported.
                let changes = recorder.batches.flatMap(\.objects)
                try #require(recorder.batches.allSatisfy(\.sections.isEmpty) && changes.allSatisfy { $0.type == .update },
                             "\(context): only updates without a visible change")
                continue
            }
            callbackBatches += 1
            // (2) Per-object callbacks replay onto the old state.
            try #require(recorder.batches.count == 1 && recorder.batches[0].closed, "\(context): one closed batch")
            let (replayed, problems) = replay(recorder.batches[0], onto: state, new: newState)
            try #require(problems.isEmpty, "\(context): \(problems) batch \(recorder.batches[0].objects)")
            try #require(replayed == newState, "\(context): replayed \(replayed) ≠ \(newState); batch \(recorder.batches[0])")
            // (3) The snapshot is the new state, and reloads every object whose content changed.
            let snapshot = try #require(recorder.snapshots.first)
            #expect(snapshot.sections.map(\.rowIDs) == newState.sections.map(\.ids), "\(context)")
            let changedContent = Set(newState.content.keys.filter { state.content[$0] != nil && state.content[$0] != newState.content[$0] })
            if batched {
                #expect(snapshot.reloadedRowIDs.isSuperset(of: changedContent), "\(context)")
            } else {
                #expect(snapshot.reloadedRowIDs == changedContent, "\(context)")
            }
            // (4) The difference turns the old flat list into the new one.
            let difference = try #require(recorder.differences.first)
            #expect(state.flatIDs.applying(difference) == newState.flatIDs, "\(context)")
            state = newState
        }
        print("RandomisedOracleTests[\(configuration.label)]: \(configuration.transactions) transactions, \(callbackBatches) with callbacks")
        if request.fetchBatchSize > 0 {
            #expect(controller.loadedRowCount <= request.fetchBatchSize * 8, "batching keeps a bounded number of rows")
        }
        #expect(callbackBatches > configuration.transactions / 10, "the workload must change the results often")
    }
}

/// Random writes to the item table: inserts, deletes, updates of the section, sort and plain
/// columns, predicate entry and exit, no-op updates, several rows per transaction, rollbacks.
enum RandomWorkload {
    static let groups: [String?] = ["Africa", "africa", "Asia", "Europe", "Internets", "日本", "Zone", nil]
    static let names = ["alpha", "Alpha", "beta", "Émile", "émile", "zeta", "Z", "a", "日本", "ß", "", "Ωmega"]

    /// Runs one random transaction; returns true when it was rolled back.
    static func transaction(_ pool: any DatabaseWriter, random: inout SplitMix64) throws -> Bool {
        let rollback = Int.random(in: 0..<10, using: &random) == 0
        let operations = Int.random(in: 1...4, using: &random)
        var generator = random
        defer { random = generator }
        try pool.writeWithoutTransaction { db in
            try db.inTransaction {
                for _ in 0..<operations { try operation(db, random: &generator) }
                return rollback ? .rollback : .commit
            }
        }
        return rollback
    }

    private static func operation(_ db: Database, random: inout SplitMix64) throws {
        let ids = try Int64.fetchAll(db, sql: "SELECT id FROM item")
        let target = ids.randomElement(using: &random)
        switch (Int.random(in: 0..<10, using: &random), target) {
        case (0...2, _), (_, nil):
            let item = Item(
                id: nil, grp: groups.randomElement(using: &random)!,
                score: Int.random(in: 0..<8, using: &random) == 0 ? nil : Int.random(in: 0...5, using: &random),
                name: names.randomElement(using: &random)!, note: "", visible: Int.random(in: 0..<5, using: &random) == 0 ? 0 : 1)
            try item.insert(db)
        case (3, let id?):
            try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [id])
        case (4, let id?):
            try db.execute(sql: "UPDATE item SET score = coalesce(score, 0) + 1 WHERE id = ?", arguments: [id])
        case (5, let id?):
            try db.execute(sql: "UPDATE item SET grp = ? WHERE id = ?", arguments: [groups.randomElement(using: &random)!, id])
        case (6, let id?):
            try db.execute(sql: "UPDATE item SET name = ? WHERE id = ?", arguments: [names.randomElement(using: &random)!, id])
        case (7, let id?):
            try db.execute(sql: "UPDATE item SET note = note || 'x' WHERE id = ?", arguments: [id])
        case (8, let id?):
            try db.execute(sql: "UPDATE item SET visible = 1 - visible WHERE id = ?", arguments: [id])
        case (_, let id?):
            // Touches the row without changing it: must produce no callback by itself.
            try db.execute(sql: "UPDATE item SET score = score WHERE id = ?", arguments: [id])
        }
    }
}
