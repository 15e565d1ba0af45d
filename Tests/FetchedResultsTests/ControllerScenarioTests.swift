import FetchedResultsSQLite
import Foundation
import GRDB
import SQLiteFixtures
import TestSupport
import Testing

@Suite struct ControllerScenarioTests {

    /// A controller over a few rows in three groups, with a recording delegate.
    func makeController(
        predicate: String? = nil, limit: Int = 0, offset: Int = 0, delegate: Recorder? = Recorder()
    ) throws -> (FetchedResultsController<Item>, DatabasePool, Recorder?) {
        let (pool, _) = try makeItemDatabase()
        try pool.write { db in
            for (grp, score, name) in [
                ("Europe", 6, "Switzerland"), ("Europe", 5, "Bosnia"), ("Europe", 0, "Spain"),
                ("Africa", 0, "Algeria"), ("Africa", 0, "Ghana"), ("South America", 2, "Brazil"),
            ] {
                let item = Item(id: nil, grp: grp, score: score, name: name, note: "", visible: 1)
                try item.insert(db)
            }
        }
        let controller = FetchedResultsController<Item>(
            fetchRequest: TableFetchRequest(
                table: "item", predicate: predicate.map { SQLitePredicate(sql: $0) },
                sortDescriptors: ItemWorkload.standings,
                fetchLimit: limit, fetchOffset: offset),
            database: pool, sectionNameKeyPath: "grp")
        controller.delegate = delegate
        try controller.performFetch()
        return (controller, pool, delegate)
    }

    func names(_ controller: FetchedResultsController<Item>) throws -> [[String]] {
        try controller.sections!.map { $0.objects.map(\.name) }
    }

    @Test func requestWithoutSortDescriptorsThrowsADescriptiveError() throws {
        let (pool, _) = try makeItemDatabase()
        let controller = FetchedResultsController<Item>(fetchRequest: TableFetchRequest(table: "item"), database: pool)
        #expect(throws: FetchedResultsError.missingSortDescriptors(table: "item")) { try controller.performFetch() }
        #expect("\(FetchedResultsError.missingSortDescriptors(table: "item"))".contains("at least one sort descriptor"))
    }

    @Test func sectionKeyPathMustBeTheFirstSortKey() throws {
        let (pool, _) = try makeItemDatabase()
        let controller = FetchedResultsController<Item>(
            fetchRequest: TableFetchRequest(table: "item", sortDescriptors: [ColumnSortDescriptor(key: "name")]),
            database: pool, sectionNameKeyPath: "grp")
        #expect(throws: FetchedResultsError.sectionKeyPathMismatch(sectionNameKeyPath: "grp", firstSortKey: "name")) {
            try controller.performFetch()
        }
    }

    @Test func emptyResultsHaveNoSections() throws {
        let (controller, _, _) = try makeController(predicate: "score > 100")
        #expect(try controller.sections!.isEmpty)
        #expect(try controller.fetchedObjects! == [])
        #expect(controller.sectionIndexTitles == [])
    }

    @Test func fetchGroupsAndOrdersLikeTheTutorial() throws {
        let (controller, _, _) = try makeController()
        #expect(try controller.sections!.map(\.name) == ["Africa", "Europe", "South America"])
        #expect(try names(controller) == [["Algeria", "Ghana"], ["Switzerland", "Bosnia", "Spain"], ["Brazil"]])
        let bosnia = try controller.object(at: IndexPath(row: 1, section: 1))
        #expect(bosnia.name == "Bosnia")
        #expect(controller.indexPath(forRowID: bosnia.id!) == IndexPath(row: 1, section: 1))
    }

    @Test func winThatOvertakesIsOneMoveAndCarriesTheChangedColumn() throws {
        let (controller, _, recorder) = try makeController()
        try controller.write { db in try db.execute(sql: "UPDATE item SET score = 6 WHERE name = 'Bosnia'") }
        #expect(try names(controller)[1] == ["Bosnia", "Switzerland", "Spain"])
        let batch = try #require(recorder!.batches.first)
        #expect(batch.sections == [])
        #expect(batch.objects.map(\.type) == [.move])
        #expect(batch.objects[0].indexPath == IndexPath(row: 1, section: 1))
        #expect(batch.objects[0].newIndexPath == IndexPath(row: 0, section: 1))
        #expect(batch.objects[0].changedColumns == ["score"])
    }

    @Test func changeThatKeepsThePlaceIsOneUpdate() throws {
        let (controller, _, recorder) = try makeController()
        try controller.write { db in try db.execute(sql: "UPDATE item SET score = 1 WHERE name = 'Brazil'") }
        let batch = try #require(recorder!.batches.first)
        #expect(batch.objects.map(\.type) == [.update])
        #expect(batch.objects[0].indexPath == IndexPath(row: 0, section: 2))
        #expect(batch.objects[0].changedColumns == ["score"])
        #expect(try controller.object(at: IndexPath(row: 0, section: 2)).score == 1)
    }

    @Test func brandNewSectionIsInsertedInItsSortedPlaceWithoutRowOperations() throws {
        let (controller, _, recorder) = try makeController()
        try controller.write { db in
            let item = Item(id: nil, grp: "Internets", score: 0, name: "Wenderland", note: "", visible: 1)
            try item.insert(db)
        }
        #expect(try controller.sections!.map(\.name) == ["Africa", "Europe", "Internets", "South America"])
        let batch = try #require(recorder!.batches.first)
        #expect(batch.sections.map(\.type) == [.insert])
        #expect(batch.sections[0].index == 2)
        #expect(batch.objects == [], "no row operation inside an inserted section")
    }

    @Test func emptiedSectionIsDeletedWithoutRowOperations() throws {
        let (controller, _, recorder) = try makeController()
        try controller.write { db in try db.execute(sql: "DELETE FROM item WHERE grp = 'Africa'") }
        #expect(try controller.sections!.map(\.name) == ["Europe", "South America"])
        let batch = try #require(recorder!.batches.first)
        #expect(batch.sections == [SectionChange(type: .delete, index: 0, name: "Africa")])
        #expect(batch.objects == [])
    }

    @Test func rowMovingBetweenSurvivingSectionsIsAMove() throws {
        let (controller, _, recorder) = try makeController()
        try controller.write { db in
            try db.execute(sql: "UPDATE item SET grp = 'Africa', score = 9 WHERE name = 'Spain'")
        }
        #expect(try names(controller) == [["Spain", "Algeria", "Ghana"], ["Switzerland", "Bosnia"], ["Brazil"]])
        let batch = try #require(recorder!.batches.first)
        #expect(batch.objects.map(\.type) == [.move])
        #expect(batch.objects[0].indexPath == IndexPath(row: 2, section: 1))
        #expect(batch.objects[0].newIndexPath == IndexPath(row: 0, section: 0))
        #expect(batch.objects[0].changedColumns == ["grp", "score"])
    }

    @Test func rowThatTakesTheTopOfItsSectionNamesIt() throws {
        let (controller, pool, recorder) = try makeController()
        try controller.write { db in try db.execute(sql: "UPDATE item SET grp = 'EUROPE' WHERE name = 'Bosnia'") }
        #expect(try controller.sections!.map(\.name) == ["Africa", "Europe", "South America"])
        // Bosnia overtakes Switzerland: the section keeps its rows and place, and takes the
        // spelling of its new first row.
        try controller.write { db in try db.execute(sql: "UPDATE item SET score = 7 WHERE name = 'Bosnia'") }
        #expect(try controller.sections!.map(\.name) == ["Africa", "EUROPE", "South America"])
        let batch = try #require(recorder!.batches.last)
        #expect(batch.sections == [SectionChange(type: .update, index: 1, name: "EUROPE")])
        #expect(batch.objects.map(\.type) == [.move])
        try expectSameAsAFreshFetch(controller, pool: pool)
    }

    @Test func rowThatStartsItsSectionBeforeAndAfterRenamesItWithItsNewSpelling() throws {
        let (controller, pool, recorder) = try makeController()
        // Switzerland starts Europe and stays first: its new spelling names the section.
        try controller.write { db in
            try db.execute(sql: "UPDATE item SET grp = 'EUROPE', score = 8 WHERE name = 'Switzerland'")
        }
        #expect(try controller.sections!.map(\.name) == ["Africa", "EUROPE", "South America"])
        let batch = try #require(recorder!.batches.last)
        #expect(batch.sections == [SectionChange(type: .update, index: 1, name: "EUROPE")])
        #expect(batch.objects.map(\.type) == [.update])
        #expect(batch.objects[0].changedColumns == ["grp", "score"])
        try expectSameAsAFreshFetch(controller, pool: pool)
        // Another column of the first row: the name stays, and no section changes.
        try controller.write { db in try db.execute(sql: "UPDATE item SET score = 9 WHERE name = 'Switzerland'") }
        #expect(try controller.sections!.map(\.name) == ["Africa", "EUROPE", "South America"])
        #expect(recorder!.batches.last!.sections == [])
        #expect(recorder!.batches.last!.objects.map(\.changedColumns) == [["score"]])
        try expectSameAsAFreshFetch(controller, pool: pool)
    }

    @Test func rowThatLeavesAWindowFromBeforeItRenamesTheWindowsFirstSection() throws {
        // Algeria, Ghana, Switzerland | Bosnia, Spain | Brazil: the window starts inside Europe.
        let (controller, pool, recorder) = try makeController(limit: 2, offset: 3)
        try controller.write { db in try db.execute(sql: "UPDATE item SET grp = 'EUROPE' WHERE name = 'Spain'") }
        #expect(try names(controller) == [["Bosnia", "Spain"]])
        #expect(try controller.sections!.map(\.name) == ["Europe"])
        // Switzerland falls from before the window to after it: Spain now starts the window.
        try controller.write { db in try db.execute(sql: "UPDATE item SET score = -1 WHERE name = 'Switzerland'") }
        #expect(try names(controller) == [["Spain", "Switzerland"]])
        #expect(try controller.sections!.map(\.name) == ["EUROPE"])
        #expect(recorder!.batches.last!.sections == [SectionChange(type: .update, index: 0, name: "EUROPE")])
        try expectSameAsAFreshFetch(controller, pool: pool)
    }

    /// The controller's sections, names and rows equal a new controller's over the same request.
    func expectSameAsAFreshFetch(_ controller: FetchedResultsController<Item>, pool: DatabasePool) throws {
        let fresh = FetchedResultsController<Item>(
            fetchRequest: controller.fetchRequest, database: pool, sectionNameKeyPath: controller.sectionNameKeyPath)
        try fresh.performFetch()
        #expect(try controller.sections!.map(\.name) == fresh.sections!.map(\.name))
        #expect(try names(controller) == names(fresh))
    }

    @Test func predicateExitIsADeleteAndEntryAnInsert() throws {
        let (controller, _, recorder) = try makeController(predicate: "visible = 1")
        try controller.write { db in try db.execute(sql: "UPDATE item SET visible = 0 WHERE name = 'Ghana'") }
        try controller.write { db in try db.execute(sql: "UPDATE item SET visible = 1 WHERE name = 'Ghana'") }
        #expect(recorder!.batches.map { $0.objects.map(\.type) } == [[.delete], [.insert]])
        #expect(recorder!.batches[0].objects[0].indexPath == IndexPath(row: 1, section: 0))
        #expect(recorder!.batches[1].objects[0].newIndexPath == IndexPath(row: 1, section: 0))
        #expect(try names(controller)[0] == ["Algeria", "Ghana"])
    }

    @Test func windowShowsOnlyLimitRowsAfterOffset() throws {
        let (controller, _, recorder) = try makeController(limit: 2, offset: 1)
        #expect(try names(controller) == [["Ghana"], ["Switzerland"]])
        // Algeria leaves the data: the window slides, Ghana and Switzerland shift, Bosnia enters.
        try controller.write { db in try db.execute(sql: "DELETE FROM item WHERE name = 'Algeria'") }
        #expect(try names(controller) == [["Switzerland", "Bosnia"]])
        let batch = try #require(recorder!.batches.first)
        #expect(batch.sections.map(\.type) == [.delete])
        #expect(batch.objects.map(\.type) == [.insert])
    }

    @Test func noDelegateMeansNoTrackingAndRollbacksNeverCallBack() throws {
        let (untracked, pool, _) = try makeController(delegate: nil)
        try pool.write { db in try db.execute(sql: "UPDATE item SET score = 99 WHERE name = 'Spain'") }
        #expect(
            try names(untracked)[1] == ["Switzerland", "Bosnia", "Spain"],
            "without a delegate the results stay as fetched")

        #expect(try !untracked.processPendingChanges(), "an untracked controller does not look")
        let recorder = Recorder()
        untracked.delegate = recorder
        #expect(!untracked.isTracking, "setting a delegate does no database work")
        try untracked.performFetch()  // tracking follows the delegate at the fetch
        #expect(untracked.isTracking)
        #expect(try names(untracked)[1] == ["Spain", "Switzerland", "Bosnia"])
        try pool.writeWithoutTransaction { db in
            try db.inTransaction {
                try db.execute(sql: "DELETE FROM item")
                return .rollback
            }
        }
        struct Boom: Error {}
        _ = try? pool.write { db in
            try db.execute(sql: "UPDATE item SET score = 0")
            throw Boom()
        }
        #expect(try !untracked.processPendingChanges())
        #expect(recorder.batches.isEmpty)
        #expect(try names(untracked)[1] == ["Spain", "Switzerland", "Bosnia"])
    }

    @Test func sectionIndexTitlesAreCapitalisedFirstLettersAndOverridable() throws {
        // The recorder is kept: a controller whose delegate went away stops tracking.
        let (controller, pool, recorder) = try makeController()
        defer { withExtendedLifetime(recorder) {} }
        try controller.write { db in
            let item = Item(id: nil, grp: "asia", score: 0, name: "Japan", note: "", visible: 1)
            try item.insert(db)
        }
        #expect(controller.sectionIndexTitles == ["A", "E", "S"])
        #expect(try controller.sections!.map(\.indexTitle) == ["A", "A", "E", "S"])
        #expect(controller.section(forSectionIndexTitle: "E", at: 1) == 2)

        final class ZoneInitials: FetchedResultsController<Item> {
            override func sectionIndexTitle(forSectionName sectionName: String) -> String? {
                String(sectionName.split(separator: " ").compactMap(\.first))
            }
        }
        let custom = ZoneInitials(fetchRequest: controller.fetchRequest, database: pool, sectionNameKeyPath: "grp")
        try custom.performFetch()
        #expect(custom.sectionIndexTitles == ["A", "a", "E", "SA"])
    }
}
