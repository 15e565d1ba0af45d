import FetchedResultsSQLite
import Foundation
import GRDB
import Glibc
import SQLiteFixtures
import Synchronization
import TestSupport
import Testing

/// The signal an event loop sleeps on: readable after any commit to the store, from any
/// process, and quiet otherwise.
@Suite struct StoreChangeSignalTests {
    func isReadable(_ signal: StoreChangeSignal) -> Bool {
        var descriptor = pollfd(fd: signal.fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 1
    }

    @Test func wakesForCommitsFromAnotherProcessAndOnlyForThem() throws {
        let (pool, path) = try makeItemDatabase(history: true)
        let signal = try #require(StoreChangeSignal(databasePath: path))
        #expect(!isReadable(signal))

        // Reads, and writes that roll back, leave the WAL file alone.
        _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") }
        try RandomTransaction(statements: ["INSERT INTO item (name) VALUES ('x')"], rollback: true).run(on: pool)
        #expect(!isReadable(signal))
        signal.drain()  // with nothing to read: the watch stays as it was

        let shell = try SQLiteShell(path: path)
        try shell.execute("INSERT INTO item (name) VALUES ('from another process');")
        #expect(isReadable(signal))
        signal.drain()
        #expect(!isReadable(signal), "drained until the next commit")

        try pool.write { db in try db.execute(sql: "UPDATE item SET score = 1") }
        #expect(isReadable(signal), "this process's commits wake it too")

        // The watch is for one write at a time: commits before the drain wake once, and the
        // drain watches again for the next.
        try pool.write { db in try db.execute(sql: "UPDATE item SET score = 2") }
        try shell.execute("UPDATE item SET score = 3;")
        signal.drain()
        #expect(!isReadable(signal))
        try shell.execute("UPDATE item SET score = 4;")
        #expect(isReadable(signal), "watched again after the drain")
    }

    /// A commit may become visible a moment after its last write to the WAL file, so the loop
    /// is asked to look again soon after each write, and only then.
    @Test func followUpLooksOnlyJustAfterAWrite() throws {
        let (pool, path) = try makeItemDatabase(history: true)
        let signal = try #require(StoreChangeSignal(databasePath: path))
        signal.drain()
        #expect(signal.followUpTimeout() == nil, "no write yet: sleep until the descriptor says so")
        try pool.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('x')") }
        signal.drain()
        let soon = try #require(signal.followUpTimeout())
        #expect(soon >= 1 && soon <= 5, "the first look again is at once: a small commit is seen a moment later")
        usleep(100_000)
        #expect(signal.followUpTimeout() == 20, "then further apart, up to 20 ms")
        usleep(1_100_000)
        signal.drain()
        #expect(signal.followUpTimeout() == nil, "the write is long past")
    }

    @Test func aStoreWithoutAWALFileHasNoSignal() throws {
        let path = temporaryPath("no-such-store-", suffix: ".sqlite")
        #expect(StoreChangeSignal(databasePath: path) == nil)
    }

    /// A signal that cannot watch closes its descriptor once: a second close would close
    /// whatever another thread opened under that number meanwhile.
    @Test func aSignalThatCannotWatchLeavesOtherThreadsDescriptorsAlone() throws {
        let path = temporaryPath("no-such-store-", suffix: ".sqlite")
        let stop = Atomic<Bool>(false)
        let closedUnderIt = Atomic<Int>(0)
        let other = Thread {
            while !stop.load(ordering: .relaxed) {
                let descriptor = open("/dev/null", O_RDONLY)
                for _ in 0..<50 where fcntl(descriptor, F_GETFD) == -1 {
                    closedUnderIt.add(1, ordering: .relaxed)
                    break
                }
                if close(descriptor) != 0 { closedUnderIt.add(1, ordering: .relaxed) }
            }
        }
        other.start()
        for _ in 0..<20_000 { #expect(StoreChangeSignal(databasePath: path) == nil) }
        stop.store(true, ordering: .relaxed)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(closedUnderIt.load(ordering: .relaxed) == 0, "another thread's descriptors closed under it")
    }
}
