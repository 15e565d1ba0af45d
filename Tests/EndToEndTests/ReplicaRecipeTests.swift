import Foundation
import TestSupport
import Testing
import ThrowawayPostgreSQL

/// The README's replica recipe run as written: its blocks "worldcup replica" (a primary and a
/// synchronous streaming standby), "worldcup replica screens" (a win and a screen through one
/// URI naming both) and "worldcup failover" (`pg_ctl promote`), with the shared scoreboard's
/// four blocks in between, each run as the user it names. The only change to the README's text:
/// the recipe's variables, set to a temporary folder and free ports on 127.0.0.1.
@Suite struct ReplicaRecipeTests {
    static let host = "127.0.0.1"

    @Test func theReadmesReplicaRecipeReadsTheStandbyAndFailsOverToIt() throws {
        let folder = try RecipeFolder()
        defer { folder.stop() }
        let primaryPort = HTTPClient.freePort()
        var standbyPort = HTTPClient.freePort()
        while standbyPort == primaryPort { standbyPort = HTTPClient.freePort() }
        let ports = ["HOST": Self.host, "PRIMARY_PORT": "\(primaryPort)", "STANDBY_PORT": "\(standbyPort)"]

        // The servers, as the postgres user, who types the replication role's password three
        // times: twice for createuser, once for pg_basebackup.
        let servers = try Self.block(
            "# worldcup replica:",
            setting: ports.merging(["PRIMARY": folder.primary, "STANDBY": folder.standby, "SOCKETS": folder.path]) {
                $1
            })
        try folder.runAsPostgres(servers, name: "worldcup replica", password: "replication secret")
        // The primary's walsender takes up the reloaded settings a moment later.
        let synchronous = ContinuousClock.now + .seconds(10)
        var syncState = ""
        while syncState != "sync" && ContinuousClock.now < synchronous {
            syncState = try folder.psql(port: primaryPort, "SELECT sync_state FROM pg_stat_replication")
            usleep(50_000)
        }
        // Required: writes on the primary wait for ever without a standby that streams.
        try #require(syncState == "sync", "the standby is synchronous")
        #expect(try folder.psql(port: primaryPort, "SHOW synchronous_commit") == "remote_apply")
        try #require(try folder.psql(port: standbyPort, "SELECT pg_is_in_recovery()") == "t")

        // The owner, the tables and the roles, on the primary.
        let (_, logins) = try ReadmeSharedSetup.follow(
            worldcup: WorldCupProcess.binary, socketFolder: folder.path, port: primaryPort, host: Self.host)

        // The scorer's win and the viewer's screen, in a terminal, as a user types them.
        let screens = try Self.block("# worldcup replica screens:", setting: ports)
        let screenLine = try #require(
            screens.split(separator: "\n").first { $0.hasPrefix("worldcup --db ") }, "the block opens a screen")
        let viewer = try #require(logins["viewer"])
        #expect(screenLine.contains("postgresql://\(viewer)@"), "the screen is a viewer's: \(screenLine)")
        let environment =
            "PATH='\((WorldCupProcess.binary as NSString).deletingLastPathComponent):/usr/bin:/bin' "
            + "PGPASSWORD=… XDG_CACHE_HOME='\(folder.path)/cache'"
        let terminal = try Tmux(
            command: "cd '\(folder.path)' && \(environment) sh -e '\(folder.file("screens.sh", screens))'")
        #expect(terminal.waitFor("World Cup — 32 teams"), "\(terminal.lines)")
        #expect(terminal.wait { _ in terminal.wins(of: "Brazil") == 1 }, "\(terminal.lines)")
        let reading = try folder.psql(
            port: standbyPort, "SELECT count(*) FROM pg_stat_activity WHERE usename = '\(viewer)'")
        #expect(reading != "0", "the screen reads the standby")

        // A read that only a standby may answer: the win is there, counted once.
        let uri = try #require(screenLine.firstMatch(of: /--db "([^"]+)"/)).1
        let settings = screens.split(separator: "\n").filter { !$0.hasPrefix("worldcup ") }
        let onStandby = try Self.script(
            settings.joined(separator: "\n") + "\nworldcup list --json --db \"\(uri)&target_session_attrs=standby\"",
            environment: environment, in: folder)
        #expect(onStandby.status == 0, "\(onStandby.stderr)")
        #expect(Self.wins(onStandby.stdout) == ["Brazil": 1], "\(onStandby.stdout)")

        // The primary is lost (an immediate shutdown, as a crash) and the standby promoted; the
        // block's own win, sent again through the same URI, lands on the promoted server.
        folder.crash(folder.primary)
        let failover = try Self.block("# worldcup failover:", setting: ["STANDBY": folder.standby])
        try folder.runAsPostgres(failover, name: "worldcup failover")
        #expect(try folder.psql(port: standbyPort, "SELECT pg_is_in_recovery()") == "f")
        try #require(
            try folder.psql(port: standbyPort, "SHOW synchronous_standby_names").isEmpty,
            "the promoted server waits for no standby")
        let scoreAgain = screens.split(separator: "\n").filter { $0 != screenLine }.joined(separator: "\n")
        let won = try Self.script(scoreAgain, environment: environment, in: folder)
        #expect(won.status == 0 && won.stdout == "2\n", "\(won.stdout)\(won.stderr)")
        #expect(
            try folder.psql(
                port: standbyPort, database: "worldcup", "SELECT wins FROM team WHERE team_name = 'Brazil'") == "2")
        #expect(terminal.wait(timeout: 15) { _ in terminal.wins(of: "Brazil") == 2 }, "\(terminal.lines)")
        try terminal.press("q")
    }

    /// The README's sh block starting with `marker`, each variable of `values` set where the
    /// block assigns it. Throws when the block assigns one of them nowhere, or when a folder of
    /// the machine's own is left in it.
    static func block(_ marker: String, setting values: [String: String]) throws -> String {
        var text = try Readme.fencedBlock(language: "sh", startingWith: marker)
        for (name, value) in values {
            let assignment = try NSRegularExpression(pattern: "(^|\\s)\(name)=\\S*", options: .anchorsMatchLines)
            let range = NSRange(text.startIndex..., in: text)
            guard assignment.firstMatch(in: text, range: range) != nil else {
                throw RecipeError("the README's \(marker) block does not set \(name)")
            }
            text = assignment.stringByReplacingMatches(
                in: text, range: range, withTemplate: "$1\(name)=" + NSRegularExpression.escapedTemplate(for: value))
        }
        guard !text.contains("/var/") else {
            throw RecipeError("the README's \(marker) block names a folder of its own: \(text)")
        }
        return text
    }

    /// Runs `script` with sh as the user who runs the tests, with the given variables; stopped
    /// after a minute (with every program it started), as a write that waits for a standby that
    /// never answers would wait for ever.
    static func script(_ script: String, environment: String, in folder: RecipeFolder) throws -> ProgramRun {
        let file = folder.file("script-\(UUID()).sh", script)
        return try ProgramRun(
            "/bin/sh", ["-e", "-c", "\(environment) /usr/bin/timeout 60 sh -e '\(file)'"], in: folder.path)
    }

    /// Each team's wins in the output of `worldcup list --json`, by name.
    static func wins(_ json: String) -> [String: Int] {
        let sections = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [[String: Any]] ?? []
        let teams = sections.flatMap { $0["teams"] as? [[String: Any]] ?? [] }
        return Dictionary(
            teams.compactMap { team in
                guard let name = team["teamName"] as? String, let wins = team["wins"] as? Int, wins > 0 else {
                    return nil
                }
                return (name, wins)
            }, uniquingKeysWith: +)
    }
}

/// The folder the recipe's servers live in, owned by the `postgres` user who runs them. Every
/// server started in it is stopped when the value goes away, and by a watchdog if the test
/// process dies first.
final class RecipeFolder: @unchecked Sendable {
    let path = NSTemporaryDirectory() + "worldcup-replica-" + UUID().uuidString.prefix(8)
    var primary: String { path + "/primary" }
    var standby: String { path + "/standby" }

    init() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try ProgramRun("/bin/chown", ["postgres:postgres", path]).requireSuccess()
        let watchdog =
            "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; for data in '\(primary)' '\(standby)'; do "
            + "kill -QUIT $(head -1 \"$data/postmaster.pid\") 2>/dev/null; done; sleep 2; rm -rf '\(path)'"
        _ = try TemporaryCluster.spawn(["/bin/sh", "-c", watchdog], output: "/dev/null")
    }

    /// Stops both servers and removes the folder.
    func stop() {
        crash(primary)
        crash(standby)
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Stops the server of `dataFolder`, if it runs, as a crash would: an immediate shutdown
    /// (`SIGQUIT` to the postmaster, as `pg_ctl stop -m immediate` sends), waiting until it is
    /// gone.
    func crash(_ dataFolder: String) {
        guard let pidFile = try? String(contentsOfFile: dataFolder + "/postmaster.pid", encoding: .utf8),
            let pid = pid_t(pidFile.prefix { $0 != "\n" })
        else { return }
        kill(pid, SIGQUIT)
        for _ in 0..<1000 where kill(pid, 0) == 0 { usleep(10_000) }
    }

    /// Writes `text` into a file of the folder that the `postgres` user may read; its path.
    func file(_ name: String, _ text: String) -> String {
        FileManager.default.createFile(atPath: path + "/" + name, contents: Data(text.utf8))
        return path + "/" + name
    }

    /// Runs `script` with `sh -e` as the `postgres` user in this folder, without a terminal,
    /// typing `password` at each of its programs' password prompts. The servers it starts hold
    /// nothing of this process's (see ``TemporaryCluster/spawn(_:output:input:)``).
    func runAsPostgres(_ script: String, name: String, password: String = "") throws {
        let log = path + "/\(name.replacingOccurrences(of: " ", with: "-")).log"
        var keyboard: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &keyboard) == 0 else {
            throw RecipeError("no socket pair (errno \(errno))")
        }
        defer { close(keyboard[1]) }
        let words = [
            "/usr/bin/setsid", "-w", "/usr/sbin/runuser", "-u", "postgres", "--", "/usr/bin/env", "-C", path,
            "/bin/sh", "-e", file(name.replacingOccurrences(of: " ", with: "-") + ".sh", script),
        ]
        let pid = try TemporaryCluster.spawn(words, output: log, input: keyboard[0])
        close(keyboard[0])
        let prompts = ["Enter password for new role: ", "Enter it again: ", "Password: "]
        var answered = 0, status: Int32 = 0
        let deadline = ContinuousClock.now + .seconds(120)
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard ContinuousClock.now < deadline else {
                kill(-pid, SIGKILL)  // setsid made it the leader of a group of its own
                throw RecipeError("the README's \"\(name)\" block did not finish in 120 s")
            }
            let printed = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let asked = prompts.reduce(0) { $0 + printed.components(separatedBy: $1).count - 1 }
            for _ in answered..<max(answered, asked) {
                _ = Array((password + "\n").utf8).withUnsafeBytes {
                    send(keyboard[1], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
            }
            answered = max(answered, asked)
            usleep(20_000)
        }
        guard status == 0 else {
            let printed = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw RecipeError("the README's \"\(name)\" block failed (\(status)): \(printed)")
        }
    }

    /// What `sql` returns, run by psql as the `postgres` superuser on the server at `port`
    /// (its Unix socket in this folder), unaligned.
    func psql(port: Int, database: String = "postgres", _ sql: String) throws -> String {
        let run = try ProgramRun(
            "/usr/sbin/runuser",
            [
                "-u", "postgres", "--", try TemporaryCluster.program("psql"), "-X", "-A", "-t", "-h", path, "-p",
                "\(port)", "-d", database, "-c", sql,
            ], in: path)
        try run.requireSuccess()
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension ProgramRun {
    /// Throws with what the program printed unless it succeeded.
    fileprivate func requireSuccess() throws {
        guard status == 0 else { throw RecipeError("failed (\(status)): \(stdout)\(stderr)") }
    }
}

/// A step of the recipe failed, or the README lacks it.
struct RecipeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
