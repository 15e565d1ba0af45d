import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

/// The shared scoreboard across hosts: network namespaces made by the test (a server, and a
/// host per scoreboard or writer, joined by veth pairs), a real server in one, real terminals in
/// the others.
@Suite(.serialized) struct NetworkEndToEndTests {
    /// The lab, its server listening on its bridge, and a seeded database.
    struct Party {
        let lab: NetworkLab
        let cluster: TemporaryCluster
        let database: SharedDatabase
        let directory = TemporaryDirectory()

        init(hosts: Int) throws {
            lab = try NetworkLab(hosts: hosts)
            cluster = try TemporaryCluster(namespace: lab.server, listenAddress: NetworkLab.serverAddress)
            database = try SharedDatabase(in: cluster)
            let seeded = try SharedScoreboardEndToEndTests.runWorldCup(["list", "--db", database.uri()])
            try #require(seeded.status == 0, "\(seeded.stderr)")
        }

        /// The database's URI as the hosts reach it: over the network.
        var uri: String { "postgresql://postgres@\(NetworkLab.serverAddress):\(cluster.port)/\(database.name)" }

        /// A scoreboard in host `index`, in a real terminal.
        func scoreboard(inHost index: Int, extra: String = "") throws -> Tmux {
            try Tmux(
                command: lab.shell(
                    "XDG_CACHE_HOME='\(directory.path)/cache\(index)' '\(WorldCupProcess.binary)' --db '\(uri)' "
                        + "--seed '\(WorldCupProcess.seedPath)' \(extra)",
                    inHost: index))
        }

        /// Runs `worldcup` in host `index`.
        func worldcup(_ arguments: [String], inHost index: Int) throws -> ProgramRun {
            try ProgramRun(
                "/usr/sbin/ip",
                ["netns", "exec", lab.hosts[index], WorldCupProcess.binary] + arguments + ["--db", uri])
        }
    }

    @Test func threeHostsKeepOneScoreAndACutHostCatchesUp() throws {
        let party = try Party(hosts: 3)
        let first = try party.scoreboard(inHost: 0)
        let log = party.directory.path + "/second.log"
        let second = try party.scoreboard(inHost: 1, extra: "--log '\(log)'")
        #expect(
            first.waitFor("World Cup — 32 teams", timeout: 15)
                && second.waitFor("World Cup — 32 teams", timeout: 15))

        // A win from a third host reaches both screens.
        var latencies: [Double] = []
        for total in 1...100 {
            let won = try party.worldcup(["win", "Brazil"], inHost: 2)
            try #require(won.stdout == "\(total)\n", "\(won.stderr)")
            let committed = Date()
            let shown =
                first.waitUntil(timeout: 5) { first.wins(of: "Brazil") == total }
                && second.waitUntil(timeout: 5) { second.wins(of: "Brazil") == total }
            latencies.append(Date().timeIntervalSince(committed) * 1000)
            #expect(shown, "win \(total)")
        }
        latencies.sort()
        print(
            String(
                format:
                    "win on one host → both other hosts' screens (ms, debug build, tmux polling): p50 %.0f, max %.0f",
                latencies[latencies.count / 2], latencies.last!))

        // The first host's cable is pulled for 10 s while the others keep scoring.
        try party.lab.cutLink(ofHost: 0)
        let cutAt = Date()
        var pressed = 0
        var cutNoticedAfter: Double?
        var slowestKeyWhileCut = 0.0
        while Date().timeIntervalSince(cutAt) < 10 {
            try second.press("Enter")  // the cursor is on Algeria
            pressed += 1
            if pressed % 3 == 0 { _ = try party.worldcup(["win", "Ghana"], inHost: 2) }
            // On any row: the state, with its reason, may wrap over the status line's rows.
            if cutNoticedAfter == nil, first.lines.contains(where: { $0.contains("Reconnecting to") }) {
                cutNoticedAfter = Date().timeIntervalSince(cutAt)
            }
            if let row = first.cursor?.row {
                // Keys work while the link is cut and while it reconnects: the cursor moves at once.
                let pressedAt = Date()
                try first.press(row < 20 ? "Down" : "Home")
                _ = first.waitUntil(timeout: 5) { first.cursor?.row != row }
                slowestKeyWhileCut = max(slowestKeyWhileCut, Date().timeIntervalSince(pressedAt))
            }
            usleep(400_000)
        }
        try party.lab.restoreLink(ofHost: 0)
        print(
            "the cut host's screen said it was reconnecting after "
                + "\(cutNoticedAfter.map { String(format: "%.1f s", $0) } ?? "never")")
        #expect(cutNoticedAfter != nil, "a silent cut is noticed within 10 s (keepalives, tcp_user_timeout)")
        print(String(format: "slowest key while cut: %.2f s", slowestKeyWhileCut))
        #expect(slowestKeyWhileCut < 1, "a cut link never blocks keys")
        let wins = try party.database.wins()
        let reported = AuditLogFile(path: log).wins.count
        #expect(wins["Algeria"] == reported, "every win the second host reported is counted once")
        #expect(reported == pressed, "the second host's wins all went through")
        // Rows a long message covers show no wins; the two teams scored during the cut must show.
        let caughtUp = first.wait(timeout: 30) { _ in
            wins.allSatisfy { name, total in first.wins(of: name).map { $0 == total } ?? true }
                && ["Algeria", "Ghana"].allSatisfy { first.wins(of: $0) == wins[$0] }
        }
        #expect(caughtUp, "the cut host shows exactly the server's standings: \(first.lines.prefix(12))")
        #expect(!first.lines.contains { $0.contains("econnecting") })
    }

    /// Four hosts run `worldcup win` 250 times each on one team, all at once: exactly 1,000.
    @Test func fourHostsTimes250WinsAreExactly1000() throws {
        let party = try Party(hosts: 4)
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { host in
            for _ in 0..<250 {
                guard let result = try? party.worldcup(["win", "Nigeria"], inHost: host), result.status == 0 else {
                    failures.withLock { $0.append("host \(host)") }
                    continue
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(try party.database.wins()["Nigeria"] == 1000)
    }

    /// `sslmode=verify-full` against a certificate authority the test makes: the right name
    /// connects; a wrong host name or an untrusted authority is refused with libpq's reason.
    @Test func tlsVerifyFullRefusesAWrongNameOrAnUntrustedAuthority() throws {
        let directory = TemporaryDirectory()
        let pki = try TestCertificates(in: directory.path, serverName: "db.worldcup.test")
        let lab = try NetworkLab(hosts: 1)
        let cluster = try TemporaryCluster(
            namespace: lab.server, listenAddress: NetworkLab.serverAddress,
            tls: (pki.serverCertificate, pki.serverKey))
        let database = try SharedDatabase(in: cluster)
        func list(host: String, rootCertificate: String) throws -> ProgramRun {
            let uri =
                "postgresql://postgres@\(host):\(cluster.port)/\(database.name)"
                + "?hostaddr=\(NetworkLab.serverAddress)&sslmode=verify-full&sslrootcert=\(rootCertificate)"
            return try ProgramRun(
                "/usr/sbin/ip",
                [
                    "netns", "exec", lab.hosts[0], WorldCupProcess.binary, "list", "--db", uri, "--seed",
                    WorldCupProcess.seedPath,
                ])
        }
        let trusted = try list(host: "db.worldcup.test", rootCertificate: pki.authority)
        #expect(trusted.status == 0 && trusted.stdout.contains("Brazil"), "\(trusted.stderr)")
        let wrongName = try list(host: "wrong.worldcup.test", rootCertificate: pki.authority)
        #expect(wrongName.status == 1)
        #expect(
            wrongName.stderr.contains(
                #"server certificate for "db.worldcup.test" does not match host name "wrong.worldcup.test""#),
            "\(wrongName.stderr)")
        let untrusted = try list(host: "db.worldcup.test", rootCertificate: pki.otherAuthority)
        #expect(untrusted.status == 1)
        #expect(untrusted.stderr.contains("certificate verify failed"), "\(untrusted.stderr)")
    }
}

/// A certificate authority, a server certificate it signed, and a second authority that
/// signed nothing, made with `openssl` for one test.
struct TestCertificates {
    let authority: String
    let otherAuthority: String
    let serverCertificate: String
    let serverKey: String

    init(in folder: String, serverName: String) throws {
        authority = folder + "/ca.crt"
        otherAuthority = folder + "/other-ca.crt"
        serverCertificate = folder + "/server.crt"
        serverKey = folder + "/server.key"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let extensions = folder + "/server.ext"
        try "subjectAltName=DNS:\(serverName)\n".write(toFile: extensions, atomically: true, encoding: .utf8)
        for step in [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder + "/ca.key", "-out", authority,
                "-days", "2",
                "-subj", "/CN=worldcup test authority",
            ],
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder + "/other-ca.key", "-out",
                otherAuthority,
                "-days", "2", "-subj", "/CN=another authority",
            ],
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", serverKey, "-out", folder + "/server.csr", "-subj",
                "/CN=\(serverName)",
            ],
            [
                "x509", "-req", "-in", folder + "/server.csr", "-CA", authority, "-CAkey", folder + "/ca.key",
                "-CAcreateserial",
                "-out", serverCertificate, "-days", "2", "-extfile", extensions,
            ],
        ] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = step
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw CertificateError(step: step.joined(separator: " ")) }
        }
    }

    struct CertificateError: Error, CustomStringConvertible {
        let step: String
        var description: String { "openssl failed: \(step)" }
    }
}
