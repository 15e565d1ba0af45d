import FetchedResultsPostgreSQL

/// A PostgreSQL database as the scoreboard keeps it, at a given size.
enum ScoreboardDatabase {
    /// The schema and the seed by the real binary, then made-up teams up to `teams` by the
    /// server itself (an import is not what is measured here), vacuumed like a settled table.
    static func load(teams: Int, into uri: String, worldcup: String) throws {
        let seeded = try runChild([worldcup, "list", "--db", uri])
        guard seeded.status == 0 else { throw BenchError("worldcup list failed on the new database") }
        let connection = try PostgreSQLConnection(uri)
        if teams > 32 {
            try connection.execute(
                """
                INSERT INTO team (team_name, qualifying_zone, image_name, wins)
                SELECT 'Team ' || md5(i::text), 'Zone ' || lpad((i % 36)::text, 2, '0'), NULL, (i::bigint * 7919) % 50
                FROM generate_series(33, $1::int) AS i
                """, [teams])
        }
        try PostgreSQLChangeFeed.prune(before: try PostgreSQLChangeFeed.currentPosition(in: connection), in: connection)
        try connection.execute("VACUUM ANALYZE")
    }
}
