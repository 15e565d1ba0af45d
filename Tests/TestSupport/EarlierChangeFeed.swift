import FetchedResultsPostgreSQL

/// The change feed's triggers before issue 46, for tests of the migration away from them and for
/// the benchmark's record: a row trigger reading the key through `to_jsonb`, and a statement
/// trigger that `NOTIFY`s.
public enum EarlierChangeFeed {
    public static func install(on table: String, _ connection: PostgreSQLConnection) throws {
        try connection.execute(
            """
            CREATE OR REPLACE FUNCTION fetched_results_record_row() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE old_id bigint; new_id bigint;
            BEGIN
                IF TG_OP <> 'INSERT' THEN old_id := (to_jsonb(OLD) ->> TG_ARGV[0])::bigint; END IF;
                IF TG_OP <> 'DELETE' THEN new_id := (to_jsonb(NEW) ->> TG_ARGV[0])::bigint; END IF;
                IF old_id IS NOT NULL THEN
                    INSERT INTO fetched_results_history (table_name, row_id) VALUES (TG_TABLE_NAME, old_id);
                END IF;
                IF new_id IS NOT NULL AND new_id IS DISTINCT FROM old_id THEN
                    INSERT INTO fetched_results_history (table_name, row_id) VALUES (TG_TABLE_NAME, new_id);
                END IF;
                RETURN NULL;
            END $$
            """)
        try connection.execute(
            """
            CREATE OR REPLACE FUNCTION fetched_results_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('fetched_results', TG_TABLE_NAME);
                RETURN NULL;
            END $$
            """)
        try connection.execute("DROP TRIGGER IF EXISTS fetched_results_\(table)_rows ON \(table)")
        try connection.execute(
            """
            CREATE TRIGGER fetched_results_\(table)_rows AFTER INSERT OR UPDATE OR DELETE ON \(table)
            FOR EACH ROW EXECUTE FUNCTION fetched_results_record_row('id')
            """)
        try connection.execute("DROP TRIGGER IF EXISTS fetched_results_\(table)_notify ON \(table)")
        try connection.execute(
            """
            CREATE TRIGGER fetched_results_\(table)_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(table)
            FOR EACH STATEMENT EXECUTE FUNCTION fetched_results_notify()
            """)
    }
}
