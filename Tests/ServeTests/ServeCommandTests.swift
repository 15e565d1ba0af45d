import Foundation
import TestSupport
import Testing

/// `worldcup serve` as a command: its options, its errors, TLS, and stopping.
@Suite struct ServeCommandTests {
    @Test func badOptionsAreUsageErrors() throws {
        let folder = TemporaryDirectory()
        for arguments in [
            ["--listen", "nowhere"], ["--listen", "127.0.0.1:99999"], ["--listen", ":80"],
            ["--tls-cert", "x.pem"], ["--read-only", "--rotate-tokens"],
        ] {
            let result = try worldcup(["serve"] + arguments, db: folder.store)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("worldcup: "), "\(arguments): \(result.stderr)")
        }
    }

    @Test func aPortInUseIsACleanError() throws {
        let folder = TemporaryDirectory()
        let first = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let port = try #require(URL(string: first.viewerLink)?.port)
        let second = try worldcup(["serve", "--listen", "127.0.0.1:\(port)"], db: folder.store)
        #expect(second.status == 1)
        #expect(second.stderr.contains("cannot serve on 127.0.0.1:\(port)"), "\(second.stderr)")
        #expect(second.stderr.contains("another program is using that port"), "\(second.stderr)")
        #expect(!second.stderr.contains("errno") && !second.stderr.contains("descriptor"), "\(second.stderr)")
        #expect(second.stderr.contains("--listen"), "\(second.stderr)")
        #expect(first.stop() == 0, "SIGINT stops it cleanly")
    }

    /// What the system said, in words that say what to do: an address that is not this
    /// machine's (192.0.2.1, kept for documentation: binding to it sends nothing), and TLS
    /// files that are not there.
    @Test func anAddressOrTLSFilesThatCannotBeUsedAreSaidToBeSo() throws {
        let folder = TemporaryDirectory()
        let elsewhere = try worldcup(["serve", "--listen", "192.0.2.1:8080"], db: folder.store)
        #expect(elsewhere.status == 1)
        #expect(elsewhere.stderr.contains("192.0.2.1 is not an address of this machine"), "\(elsewhere.stderr)")
        #expect(!elsewhere.stderr.contains("another program"), "\(elsewhere.stderr)")

        let missing = folder.path + "/nope.pem"
        let noFiles = try worldcup(
            ["serve", "--listen", "127.0.0.1:0", "--tls-cert", missing, "--tls-key", folder.path + "/nope.key"],
            db: folder.store)
        #expect(noFiles.status == 1)
        #expect(
            noFiles.stderr.contains("cannot read the TLS certificate \(missing): No such file or directory"),
            "\(noFiles.stderr)")
    }

    @Test func sigtermStopsItCleanlyWithABrowserConnected() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let browser = try WebDriver()
        try browser.open(serve.viewerLink)
        try #require(try browser.wait { try PageRows.read(browser).ready })
        let start = Date()
        serve.process.terminate()
        serve.process.waitUntilExit()
        // Measured, not asserted: how long it takes is for benchmarks to watch.
        print("serve: stopped \(Date().timeIntervalSince(start)) s after SIGTERM with a browser connected")
        #expect(serve.process.terminationReason == .exit && serve.process.terminationStatus == 0)
    }

    /// `systemctl stop` sends SIGTERM: serve stops as at Ctrl-C (SIGINT), at once, with status 0,
    /// an open event stream ended (its browser comes back to another server) and written to
    /// the log, and the win made before kept.
    @Test func sigtermStopsItAsCtrlCDoes() throws {
        struct Stop: Equatable {
            var status: Int32?
            var lastLogLine: String
            var listed: String
        }
        var stops: [Int32: Stop] = [:]
        for signal in [SIGINT, SIGTERM] {
            let folder = TemporaryDirectory()
            let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
            let port = try #require(URL(string: serve.viewerLink)?.port)
            let viewer = try EventStream(port: port)
            #expect(try viewer.next().name == "snapshot")
            #expect(try worldcup(["win", "Brazil"], db: folder.store).status == 0)
            #expect(try viewer.next().data.contains("Brazil"))
            let start = Date()
            kill(serve.process.processIdentifier, signal)
            serve.process.waitUntilExit()
            let stopped = Date().timeIntervalSince(start)
            print("serve: stopped \(stopped) s after signal \(signal)")
            #expect(stopped < 5, "signal \(signal)")
            #expect(throws: EventStream.Ended.self) { try viewer.next() }
            let log = (try? String(contentsOfFile: serve.outputPath + ".err", encoding: .utf8)) ?? ""
            // Without its time and duration, which differ from run to run.
            let last = log.split(separator: "\n").last.map { $0.split(separator: " ").dropFirst().dropLast(2) } ?? []
            stops[signal] = Stop(
                status: serve.process.terminationReason == .exit ? serve.process.terminationStatus : nil,
                lastLogLine: last.joined(separator: " "),
                listed: try worldcup(["list"], db: folder.store).stdout)
        }
        let interrupted = try #require(stops[SIGINT])
        #expect(interrupted.status == 0)
        #expect(interrupted.lastLogLine == "info worldcup serve: [WorldCupServer] GET /events 200")
        #expect(interrupted.listed.contains(/\n  Brazil +1\n/), "\(interrupted.listed)")
        #expect(stops[SIGTERM] == interrupted)
    }

    /// Listening on this machine only (the default 127.0.0.1), no phone can open the links: no
    /// QR code then, but how to let them in; listening on the network, the QR code.
    @Test func onThisMachineOnlyItSaysHowToLetPhonesInRatherThanShowAQRCode() throws {
        let folder = TemporaryDirectory()
        let qrBlocks: Set<Character> = ["█", "▀", "▄"]
        let local = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let port = try #require(URL(string: local.viewerLink)?.port)
        usleep(500_000)
        #expect(!local.printed.contains { qrBlocks.contains($0) }, "no QR code for 127.0.0.1: \(local.printed)")
        #expect(local.printed.contains("--listen 0.0.0.0:\(port)"), "\(local.printed)")
        #expect(local.stop() == 0)
        let network = try ServeProcess(db: folder.store, home: folder.path + "/home", listen: "0.0.0.0:0")
        usleep(500_000)
        #expect(network.printed.contains { qrBlocks.contains($0) }, "a QR code on the network: \(network.printed)")
        #expect(!network.printed.contains("--listen"), "\(network.printed)")
        #expect(network.stop() == 0)
    }

    @Test func tlsServesTheSameStandingsOverHTTPS() throws {
        let folder = TemporaryDirectory()
        let certificate = folder.path + "/cert.pem", key = folder.path + "/key.pem"
        let made = try ProgramRun(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key, "-out", certificate,
            ])
        try #require(made.status == 0, "\(made.stderr)")
        let serve = try ServeProcess(
            db: folder.store, home: folder.path + "/home", arguments: ["--tls-cert", certificate, "--tls-key", key])
        #expect(serve.viewerLink.hasPrefix("https://127.0.0.1:"))
        let fetched = try ProgramRun("/usr/bin/curl", ["-sS", "--cacert", certificate, serve.base + "/standings.json"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout == (try worldcup(["list", "--json"], db: folder.store)).stdout)
        // Plain HTTP to the TLS port gets nothing it could use.
        let plainBase = serve.base.replacingOccurrences(of: "https:", with: "http:")
        let plain = try ProgramRun("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", plainBase + "/"])
        #expect(plain.stdout != "200")
        let unusable = try worldcup(["serve", "--tls-cert", key, "--tls-key", certificate], db: folder.store)
        #expect(unusable.status == 1, "\(unusable.stderr)")
        #expect(unusable.stderr.contains("cannot use the TLS certificate"), "\(unusable.stderr)")
    }
}
