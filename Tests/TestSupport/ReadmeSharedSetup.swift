import Foundation

/// The README's shared scoreboard set up from nothing, by its own four blocks read at test time
/// ("worldcup server", "worldcup first run", "worldcup roles", "worldcup logins"), each run as
/// the user it names, on a throw-away cluster of its own (roles are cluster-wide, and the
/// blocks make fixed names). The only change made to the README's text: its host,
/// `party.local`, becomes the test server's Unix socket.
public struct ReadmeSharedSetup: Sendable {
    public let cluster: TemporaryCluster
    /// The owner's `--db` URI from the first-run block, pointed at this cluster.
    public let ownerURI: String
    /// Each role's login from the logins block: "viewer", "scorer", "organiser" to a login name.
    public let logins: [String: String]

    /// Follows the README's blocks in order; `worldcup` is the binary its commands run. Throws
    /// with the block, the output and the status of the first command that fails.
    public init(worldcup: String) throws {
        cluster = try TemporaryCluster()
        let socket = cluster.socketFolder
        (ownerURI, logins) = try Self.follow(
            worldcup: worldcup, socketFolder: socket, port: cluster.port,
            host: socket.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? socket)
    }

    /// Follows the README's four blocks on a server that runs already: the `postgres` user
    /// reaches it at `socketFolder` and `port`, and `party.local` in the blocks becomes `host`.
    /// Every password is the blocks' own, `…`, so that a server that asks for passwords takes
    /// them. Returns the owner's `--db` URI and each role's login.
    public static func follow(
        worldcup: String, socketFolder: String, port: Int, host: String
    ) throws -> (ownerURI: String, logins: [String: String]) {
        let server = try Readme.fencedBlock(language: "sh", startingWith: "# worldcup server")
        let firstRun = try Readme.fencedBlock(language: "sh", startingWith: "# worldcup first run")
        let roles = try Readme.fencedBlock(language: "sql", startingWith: "-- worldcup roles")
        let loginsBlock = try Readme.fencedBlock(language: "sql", startingWith: "-- worldcup logins")
        func here(_ text: String) -> String { text.replacingOccurrences(of: "party.local", with: host) }
        guard let uri = here(firstRun).firstMatch(of: /'(postgresql:\/\/[^']*)'/)?.1 else {
            throw ReadmeError(description: "the README's first-run block has no 'postgresql://…' URI")
        }
        let ownerURI = String(uri)
        let loginLines = loginsBlock.matches(of: /CREATE ROLE (\w+) LOGIN .* IN ROLE worldcup_(\w+);/)
        let logins = Dictionary(uniqueKeysWithValues: loginLines.map { (String($0.2), String($0.1)) })
        let environment = [
            "PGHOST": socketFolder, "PGPORT": String(port), "PGPASSWORD": "…",
            "PATH": (worldcup as NSString).deletingLastPathComponent + ":/usr/bin:/bin",
        ]
        // As the postgres user, without a terminal, so that --pwprompt reads its two answers from stdin.
        let asPostgres = ["/usr/bin/setsid", "-w", "/usr/sbin/runuser", "-u", "postgres", "--"]
        try run(
            asPostgres + ["/bin/sh", "-e", "-c", server],
            input: "…\n…\n", environment: environment, block: "worldcup server")
        try run(["/bin/sh", "-e", "-c", here(firstRun)], environment: environment, block: "worldcup first run")
        let psql = try TemporaryCluster.program("psql")
        for (name, block) in [("worldcup roles", roles), ("worldcup logins", loginsBlock)] {
            try run(
                [psql, ownerURI, "--no-psqlrc", "--quiet", "--set", "ON_ERROR_STOP=1"],
                input: block, environment: environment, block: name)
        }
        return (ownerURI, logins)
    }

    /// The owner's URI with the login of `role` ("viewer", "scorer", "organiser") as the user.
    public func uri(role: String) -> String {
        ownerURI.replacingOccurrences(of: "organiser@", with: (logins[role] ?? role) + "@")
    }

    static func run(_ words: [String], input: String = "", environment: [String: String], block: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: words[0])
        process.arguments = Array(words.dropFirst())
        process.environment = environment.merging(["LANG": "C.UTF-8"]) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        let stdin = Pipe(), output = Pipe()
        process.standardInput = stdin
        process.standardOutput = output
        process.standardError = output
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let status = process.terminationStatus
            throw ReadmeError(description: "the README's \"\(block)\" block failed (\(status)): \(printed)")
        }
    }
}
