import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

@testable import WorldCupModel
@testable import WorldCupStores

/// A database an earlier `worldcup` made, whose change feed sent a `NOTIFY` with every score
/// (which made every scorer's commit wait for every other's): opened by this version as its
/// owner, its schema's migration takes the notification (and the history's row numbers) away,
/// and screens still follow.
@Suite(.serialized) struct PostgreSQLFeedMigrationTests {
    @Test func openingAnEarlierDatabaseTakesItsNotificationAway() throws {
        let database = try SharedDatabase()
        let store = try PostgreSQLTeamStore.open(conninfo: database.uri())
        try store.seedIfNeeded { .file(Fixtures.seedPath) }
        let owner = try database.connect()
        // As version 2 left it: the notifying statement trigger, no later migration.
        try owner.execute(
            """
            CREATE OR REPLACE FUNCTION fetched_results_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('fetched_results', TG_TABLE_NAME);
                RETURN NULL;
            END $$
            """)
        try owner.execute(
            """
            CREATE OR REPLACE TRIGGER fetched_results_team_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON team
            FOR EACH STATEMENT EXECUTE FUNCTION fetched_results_notify()
            """)
        // …and the history's row numbers, which writers paid for and nothing read.
        try owner.execute("ALTER TABLE fetched_results_history ADD COLUMN sequence bigserial PRIMARY KEY")
        try owner.execute("DELETE FROM worldcup_schema_version WHERE version > 2")
        let listener = try database.connect()
        try listener.execute("LISTEN fetched_results")
        let ghana = Int64(try owner.execute("SELECT id FROM team WHERE team_name = 'Ghana'").scalar!)!
        try owner.execute("UPDATE team SET wins = wins + 1 WHERE id = $1", [ghana])
        try listener.execute("SELECT 1")
        try #require(!(try listener.notifications()).isEmpty, "the earlier feed notifies")

        let reopened = try PostgreSQLTeamStore.open(conninfo: database.uri())
        let position = try PostgreSQLChangeFeed.currentPosition(in: owner)
        // A writer's own transaction notifies nobody (the app announces after its commits, in a
        // transaction of its own: PostgreSQLChangeFeed.announce).
        try owner.execute("UPDATE team SET wins = wins + 1 WHERE id = $1", [ghana])
        try listener.execute("SELECT 1")
        #expect(try listener.notifications().isEmpty, "no NOTIFY with a score")
        _ = try reopened.addWin(teamID: ghana, clientKey: ScoreKey())
        try listener.execute("SELECT 1")
        #expect(try listener.notifications().count == 1, "the app's score, announced once after its commit")
        #expect(
            try PostgreSQLChangeFeed.changes(since: position, in: owner).rowIDs["team"] == [ghana],
            "the score is in the history")
        let triggers = try owner.execute(
            "SELECT string_agg(tgname, ', ' ORDER BY tgname) FROM pg_trigger WHERE tgrelid = 'team'::regclass"
        ).scalar
        #expect(triggers == "fetched_results_team_rows, fetched_results_team_truncate")
        let historyColumns = try owner.execute(
            """
            SELECT string_agg(attname, ', ' ORDER BY attnum) FROM pg_attribute
            WHERE attrelid = 'fetched_results_history'::regclass AND attnum > 0 AND NOT attisdropped
            """
        ).scalar
        #expect(historyColumns == "transaction, table_name, row_id", "no row numbers")
    }
}
