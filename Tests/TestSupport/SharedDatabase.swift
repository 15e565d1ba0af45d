import FetchedResultsPostgreSQL
import Foundation

/// A PostgreSQL database for the app's shared-scoreboard tests, in a throw-away cluster of
/// their own (the library's tests keep theirs quiet for their pruning checks).
public struct SharedDatabase: Sendable {
    /// The cluster these tests share, started on first use.
    public static let cluster: Result<TemporaryCluster, Error> = Result { try TemporaryCluster() }

    public let name: String
    public let cluster: TemporaryCluster

    /// A new, empty database, in `cluster` or the one these tests share (a test that stops or
    /// kills its server brings its own).
    public init(in cluster: TemporaryCluster? = nil) throws {
        self.cluster = try cluster ?? Self.cluster.get()
        name = "worldcup_" + UUID().uuidString.prefix(8).lowercased()
        try PostgreSQLConnection(self.cluster.connectionString).execute("CREATE DATABASE \(name)")
    }

    /// The `--db` URI for `role`, over the cluster's Unix socket.
    public func uri(role: String = "postgres") -> String {
        "postgresql://\(role)@/\(name)?host=\(cluster.socketFolder)&port=\(cluster.port)"
    }

    /// A connection as the `postgres` superuser, to look at what the server holds.
    public func connect() throws -> PostgreSQLConnection {
        try PostgreSQLConnection("host=\(cluster.socketFolder) port=\(cluster.port) dbname=\(name) user=postgres")
    }

    /// Each team's wins as the server holds them.
    public func wins() throws -> [String: Int] {
        var wins: [String: Int] = [:]
        for row in try connect().execute("SELECT team_name, wins FROM team").rows {
            wins[row[0]!] = Int(row[1]!)!
        }
        return wins
    }

    /// Makes the server end the session of whoever commits a score, during the `COMMIT` (a
    /// deferred trigger that terminates its own backend), the first `times` times (nil: until
    /// ``stopCuttingCommits()``). The transaction is rolled back, and its client cannot tell
    /// whether it committed.
    public func cutCommitsOfScores(times: Int?) throws {
        let connection = try connect()
        try connection.execute("CREATE SEQUENCE commits_cut")
        try connection.execute(
            """
            CREATE FUNCTION cut_during_commit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF \(times.map { "nextval('commits_cut') <= \($0)" } ?? "true") THEN
                    PERFORM pg_terminate_backend(pg_backend_pid());
                END IF;
                RETURN NULL;
            END $$
            """)
        try connection.execute(
            """
            CREATE CONSTRAINT TRIGGER cut AFTER INSERT ON score_receipt DEFERRABLE INITIALLY DEFERRED
            FOR EACH ROW EXECUTE FUNCTION cut_during_commit()
            """)
    }

    /// Lets commits of scores through again.
    public func stopCuttingCommits() throws {
        try connect().execute("DROP TRIGGER cut ON score_receipt")
    }

    /// Runs the README's roles block as the owner, and makes a login in each role:
    /// `viewer`, `scorer` and `organiser` (trust authentication: the cluster has no passwords).
    public func createRoles() throws {
        let connection = try connect()
        // Roles are cluster-wide: a database made earlier in this run may have made them.
        let rolesExist =
            try connection.execute("SELECT count(*) FROM pg_roles WHERE rolname = 'worldcup_viewer'").scalar != "0"
        for statement in try Self.readmeRolesStatements() where !(rolesExist && statement.hasPrefix("CREATE ROLE")) {
            try connection.execute(statement)
        }
        if !rolesExist {
            for login in ["viewer", "scorer", "organiser"] {
                try connection.execute("CREATE ROLE \(login) LOGIN IN ROLE worldcup_\(login)")
            }
        }
    }

    /// The statements of the README's roles block (the fenced SQL that starts with
    /// `-- worldcup roles`), so the tests check what users are told to run.
    public static func readmeRolesStatements() throws -> [String] {
        try readmeRolesBlock().split(separator: ";").map { statement in
            statement.split(separator: "\n").filter { !$0.hasPrefix("--") }.joined(separator: "\n")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }.filter { !$0.isEmpty }
    }

    /// The README's roles block (the fenced SQL that starts with `-- worldcup roles`), so the
    /// tests check what users are told to run.
    public static func readmeRolesBlock() throws -> String {
        try Readme.fencedBlock(language: "sql", startingWith: "-- worldcup roles")
    }
}
