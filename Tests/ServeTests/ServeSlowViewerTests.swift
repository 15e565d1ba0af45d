import Foundation
import Synchronization
import TestSupport
import Testing

/// A viewer that reads nothing while thousands of change sets go by: the others get every one,
/// and the stalled viewer is cut off once its bounded buffer is full (its browser comes back
/// with `Last-Event-ID`), rather than kept in memory without bound.
@Suite struct ServeSlowViewerTests {
    static let changeSets = 3_000

    @Test func aStalledViewerIsCutOffAndHoldsNobodyBack() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let stalled = try EventStream(port: port, receiveBuffer: 2_048)
        let live = try EventStream(port: port)
        #expect(try live.next().name == "snapshot")

        // Wins one commit at a time, from sqlite3, until the live viewer has had enough
        // change sets (commits close together may share one).
        let received = Atomic<Int>(0)
        let reader = Thread {
            while received.load(ordering: .relaxed) < Self.changeSets, (try? live.next()) != nil {
                received.add(1, ordering: .relaxed)
            }
        }
        reader.start()
        let updates = String(
            repeating: "UPDATE team SET wins = wins + 1 WHERE id = 1;\n.shell sleep 0.002\n", count: 100)
        var rounds = 0
        while received.load(ordering: .relaxed) < Self.changeSets && rounds < 200 {
            let run = try ProgramRun("/bin/sh", ["-c", "printf '%s' \"$0\" | sqlite3 '\(folder.store)'", updates])
            try #require(run.status == 0, "\(run.stderr)")
            rounds += 1
        }
        #expect(received.load(ordering: .relaxed) >= Self.changeSets, "the live viewer got every change set")

        // The stalled viewer reads now: what was buffered for it, then the end of its stream.
        var got = 0
        var cutOff = false
        while got <= Self.changeSets + 1 {
            do {
                _ = try stalled.next()
                got += 1
            } catch is EventStream.Ended {
                cutOff = true
                break
            }
        }
        #expect(cutOff, "cut off after \(got) events")
        #expect(got < Self.changeSets, "it got only what its buffers held: \(got)")
        print(
            "serve slow viewer: cut off after \(got) events; the live viewer got \(received.load(ordering: .relaxed))")
        #expect(serve.stop() == 0)
    }
}

/// Viewers that read nothing for 30 s while commits keep coming: the one that reads gets every
/// change set, and serve's memory stays bounded instead of holding every event for the stalled.
@Suite struct ServeStalledViewersTests {
    static let stalledViewers = 20
    static let seconds = 30

    @Test func viewersThatReadNothingFor30sLeaveMemoryBounded() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let pid = serve.process.processIdentifier
        let live = try EventStream(port: port)
        #expect(try live.next().name == "snapshot")
        let before = ProcessUsage.residentKilobytes(pid)
        let stalled = try (0..<Self.stalledViewers).map { _ in try EventStream(port: port, receiveBuffer: 2_048) }

        // Every team +1 per commit (a change set of 32 rows, some 3 KB), about every 5 ms, from
        // sqlite3, for 30 s; serve's memory sampled every second. The shell waits for a lock as
        // any writer beside serve must (serve's housekeeping writes now and then).
        let received = EventTally(reading: live)
        let script =
            "{ echo '.timeout 10000'; for i in $(seq \(Self.seconds * 200)); do "
            + "echo 'UPDATE team SET wins = wins + 1;'; echo '.shell sleep 0.004'; done; } | sqlite3 '\(folder.store)'"
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", script]
        try writer.run()
        var samples: [Int] = []
        while writer.isRunning {
            sleep(1)
            samples.append(ProcessUsage.residentKilobytes(pid))
        }
        #expect(writer.terminationStatus == 0)
        let commits = Self.seconds * 200

        // The live viewer ends with every commit: each team's wins equal the commits.
        let deadline = Date().addingTimeInterval(30)
        while !(received.last?.data.contains("\"wins\":\(commits)") ?? false) && Date() < deadline { usleep(50_000) }
        #expect(received.last?.data.contains("\"wins\":\(commits)") == true, "the live viewer saw the last commit")

        // Bounded: the log keeps at most 8 MB of change sets, and each stalled viewer's queue
        // holds the same buffers as the log until it is cut off; holding every change set for
        // each stalled viewer would take some 300 MB.
        let peak = samples.max() ?? 0
        print(
            "serve stalled viewers: \(received.count) change sets to the live viewer; "
                + "memory \(before / 1024) MB before, \(peak / 1024) MB at its peak")
        #expect(peak - before <= 64 * 1024, "memory grew \((peak - before) / 1024) MB")
        withExtendedLifetime(stalled) {}
        live.close()
        #expect(serve.stop() == 0)
    }

    /// Ctrl-C while a viewer's writes are stuck (it reads nothing, its socket is full): serve
    /// still stops, at once.
    @Test func aStuckViewerDoesNotHoldServeWhenItStops() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let stuck = try EventStream(port: port, receiveBuffer: 2_048)
        // Some 900 KB of change sets: far more than its socket and serve's send buffer hold,
        // far fewer than the events its queue holds before it is cut off.
        try Self.commit(300, everyTeamIn: folder.store, seenBy: port)
        serve.process.interrupt()
        let deadline = Date().addingTimeInterval(15)
        while serve.process.isRunning && Date() < deadline { usleep(50_000) }
        #expect(!serve.process.isRunning, "serve still ran 15 s after SIGINT")
        if serve.process.isRunning { serve.kill() }
        withExtendedLifetime(stuck) {}
    }

    /// A viewer whose queue overflowed is cut off at once: serve closes its connection, even
    /// though the viewer never reads again (its stuck write does not keep it open).
    @Test func aViewerCutOffIsDisconnectedWithoutReading() throws {
        let folder = TemporaryDirectory()
        let serve = try ServeProcess(db: folder.store, home: folder.path + "/home")
        let port = try #require(URL(string: serve.viewerLink)?.port)
        let stuck = try EventStream(port: port, receiveBuffer: 2_048)
        let viewerPort = LoopbackSocket.localPort(of: stuck.descriptor)
        func serverSideOpen() throws -> Bool {
            let listed = try ProgramRun(
                "/usr/bin/ss", ["-tnH", "state", "established", "( sport = :\(port) and dport = :\(viewerPort) )"])
            return !listed.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        }
        #expect(try serverSideOpen(), "serve holds the viewer's connection while it follows")
        // More change sets than its queue (1,024) and every buffer on the way hold.
        try Self.commit(2_000, everyTeamIn: folder.store, seenBy: port)
        let deadline = Date().addingTimeInterval(10)
        while try serverSideOpen() && Date() < deadline { usleep(100_000) }
        #expect(try !serverSideOpen(), "serve still held the connection of a viewer it cut off")
        withExtendedLifetime(stuck) {}
        #expect(serve.stop() == 0)
    }

    /// `count` commits that add a win to every team (a change set of some 3 KB each), from
    /// sqlite3, until a viewer that reads all along has seen the last one.
    static func commit(_ count: Int, everyTeamIn store: String, seenBy port: Int) throws {
        let live = try EventStream(port: port)
        #expect(try live.next().name == "snapshot")
        let sawLast = DispatchSemaphore(value: 0)
        Thread {
            while let event = try? live.next(), !event.data.contains("\"wins\":\(count)") {}
            sawLast.signal()
        }.start()
        let updates = String(repeating: "UPDATE team SET wins = wins + 1;\n.shell sleep 0.002\n", count: count)
        let run = try ProgramRun("/bin/sh", ["-c", "printf '%s' \"$0\" | sqlite3 '\(store)'", updates])
        try #require(run.status == 0, "\(run.stderr)")
        #expect(sawLast.wait(timeout: .now() + 60) == .success, "the reading viewer saw the last commit")
        live.close()
    }
}
