import FetchedResults
import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import ThrowawayPostgreSQL
import WorldCupModel
import WorldCupStores

/// Many screens on one PostgreSQL store, two ways, on a throw-away local server:
/// - `worldcup serve` (the release binary) with a thousand viewers' event streams, read by one
///   thread of this process (`poll`);
/// - N terminal-style results controllers, the scoreboard's own, each on its own connection,
///   followed by one thread of this process as N scoreboards would share the machine.
///
/// Each +1 win is committed by a connection of this process and announced, as the app's writes
/// are (`PostgreSQLChangeFeed.announce(in:)`), one at a time, every 20 ms at most; a win's time
/// runs from its announcement's return to each screen's having it (an event's
/// bytes read, or the controller's callbacks delivered). The server's CPU is that of every
/// PostgreSQL process of the cluster; a bare run (nobody following) gives the commit's own.
/// While `serve`'s wins are timed, `/metrics` is read every second, as a Prometheus would; then
/// the same thousand viewers read through nginx in front of it.
struct ServeFanOutRuns {
    struct Result {
        let teams: Int
        let viewers: Int
        var wins: Int
        /// A win → each viewer (every viewer, every win), ms.
        var toEachViewer: Percentiles
        /// A win → the last of the viewers had it, ms.
        var toAllViewers: Percentiles
        /// The same, with one more viewer that reads nothing meanwhile.
        var toAllBesideStalledViewer: Percentiles
        /// A win → the last of as many viewers reading through nginx (the repository's
        /// configuration) in front of `serve`, ms.
        var toAllViewersThroughNginx: Percentiles
        /// `serve`'s CPU per win, ms, with `/metrics` read every second meanwhile.
        var serveCPUPerWin: Double
        /// How many times `/metrics` was read while the wins were timed.
        var metricsScrapes: Int
        /// `serve`'s resident memory per viewer (grown from before the viewers came), KB.
        var serveKilobytesPerViewer: Double
        /// Connections `serve` held to the server while the viewers followed.
        var serveConnections: Int
        /// PostgreSQL's CPU per win: nobody following, and `serve` following.
        var bareServerCPUPerWin: Double
        var serverCPUPerWinWithServe: Double
        var controllers: [Controllers]
    }

    /// N controllers on their own connections.
    struct Controllers {
        let count: Int
        var toEach: Percentiles
        var toAll: Percentiles
        /// PostgreSQL's CPU per win, and the controllers' (this process's), ms.
        var serverCPUPerWin: Double
        var clientCPUPerWin: Double
    }

    static let controllerCounts = [10, 50, 95]
    static let viewers = 1_000
    static let winInterval = 20.0

    let cluster: TemporaryCluster
    let worldcup: String
    let teams: Int
    let wins: Int
    let folder: String

    func run() throws -> Result {
        let name = "fanout_\(teams)"
        try PostgreSQLConnection(cluster.connectionString).execute("CREATE DATABASE \(name)")
        let uri = "postgresql://postgres@/\(name)?host=\(cluster.socketFolder)&port=\(cluster.port)"
        try ScoreboardDatabase.load(teams: teams, into: uri, worldcup: worldcup)
        let writer = try PostgreSQLConnection(uri)
        let ids = try writer.execute("SELECT id FROM team ORDER BY random() LIMIT 100").rows.compactMap { $0[0] }
        var next = 0
        func win() throws {
            try writer.execute("UPDATE team SET wins = wins + 1 WHERE id = $1", [ids[next % ids.count]])
            try PostgreSQLChangeFeed.announce(in: writer)
            next += 1
        }
        let postmaster = try postmasterID()
        func serverCPU() -> Double { ProcessUsage.cpuMillisecondsWithChildren(postmaster) }

        let bareStart = serverCPU()
        for _ in 0..<wins { try paced { try win() } }
        let bare = (serverCPU() - bareStart) / Double(wins)

        var result = try serveRun(uri: uri, win: win, serverCPU: serverCPU)
        result.bareServerCPUPerWin = bare
        for count in Self.controllerCounts {
            result.controllers.append(try controllersRun(count: count, uri: uri, win: win, serverCPU: serverCPU))
        }
        return result
    }

    /// `serve` and its viewers, who resume at the current position (as a page reconnecting
    /// does), so that a thousand snapshots of a big store (a thousand copies of one snapshot
    /// built once) are not what is measured.
    private func serveRun(uri: String, win: () throws -> Void, serverCPU: () -> Double) throws -> Result {
        setenv("WORLDCUP_BIN", worldcup, 1)
        let serve = try ServeProcess(db: uri, home: folder + "/fanout-home-\(teams)")
        defer { serve.stop() }
        let pid = serve.process.processIdentifier
        guard let port = URL(string: serve.viewerLink)?.port else { throw BenchError("no port in serve's link") }
        // A first viewer's snapshot, then the load steps behind it until serve holds every team
        // (quiet for two seconds, no win made yet): the position the thousand viewers resume at.
        let position = try currentPosition(port: port)
        let memoryBefore = ProcessUsage.residentKilobytes(pid)
        let viewers = try warmViewers(port: port, at: position, win: win)
        let memoryAfter = ProcessUsage.residentKilobytes(pid)
        let connections =
            try PostgreSQLConnection(uri).execute(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND datname = current_database()
                """
            ).scalar.flatMap { Int($0) }.map { $0 - 1 } ?? -1  // less this process's writer

        let scraper = MetricsScraper(url: serve.base + "/metrics")
        let (serveStart, serverStart) = (ProcessUsage.cpuMilliseconds(pid), serverCPU())
        var toEach: [Double] = [], toAll: [Double] = []
        for _ in 0..<wins {
            let arrived = try paced { () throws -> [Double] in
                try win()
                return try arrivals(at: viewers)
            }
            toEach += arrived
            toAll.append(arrived.max() ?? .nan)
        }
        let serveCPU = (ProcessUsage.cpuMilliseconds(pid) - serveStart) / Double(wins)
        let serverCPUPerWin = (serverCPU() - serverStart) / Double(wins)
        let scrapes = try scraper.stop()

        let stalled = try EventStream(port: port, lastEventID: position, receiveBuffer: 2_048)
        var besideStalled: [Double] = []
        for _ in 0..<wins {
            besideStalled.append(
                try paced {
                    try win(); return try arrivals(at: viewers).max() ?? .nan
                })
        }
        stalled.close()
        viewers.forEach { $0.close() }

        let nginx = try NginxProxy(
            servePort: port, folder: folder + "/nginx-\(teams)", workerConnections: 4 * Self.viewers)
        defer { nginx.stop() }
        let proxied = try warmViewers(port: nginx.port, at: try currentPosition(port: nginx.port), win: win)
        var throughNginx: [Double] = []
        for _ in 0..<wins {
            throughNginx.append(
                try paced {
                    try win(); return try arrivals(at: proxied).max() ?? .nan
                })
        }
        proxied.forEach { $0.close() }
        return Result(
            teams: teams, viewers: Self.viewers, wins: wins, toEachViewer: Percentiles(toEach),
            toAllViewers: Percentiles(toAll), toAllBesideStalledViewer: Percentiles(besideStalled),
            toAllViewersThroughNginx: Percentiles(throughNginx), serveCPUPerWin: serveCPU, metricsScrapes: scrapes,
            serveKilobytesPerViewer: Double(memoryAfter - memoryBefore) / Double(Self.viewers),
            serveConnections: connections, bareServerCPUPerWin: .nan, serverCPUPerWinWithServe: serverCPUPerWin,
            controllers: [])
    }

    /// The current position of the standings on `port` (serve's, or a proxy's in front of it):
    /// a first viewer's snapshot, then the load steps behind it until serve holds every team
    /// (quiet for two seconds).
    private func currentPosition(port: Int) throws -> String {
        let first = try EventStream(port: port)
        var position = try first.next().id
        var readable = pollfd(fd: first.descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&readable, 1, 2_000) > 0 {
            position = try first.eventsWaiting().last?.id ?? position
        }
        first.close()
        return position
    }

    /// A thousand viewers on `port` resumed at `position`, warm: wins until each brings every
    /// viewer one event and nothing more (every stream admitted, every row loaded).
    private func warmViewers(port: Int, at position: String, win: () throws -> Void) throws -> [EventStream] {
        let viewers = try (0..<Self.viewers).map { _ in try EventStream(port: port, lastEventID: position) }
        var settled = 0
        for _ in 0..<500 where settled < 5 {
            let single = try paced { () throws -> Bool in
                try win()
                _ = try arrivals(at: viewers, allowingMore: true)
                usleep(100_000)
                return try viewers.allSatisfy { try $0.eventsWaiting().isEmpty }
            }
            settled = single ? settled + 1 : 0
        }
        guard settled == 5 else { throw BenchError("serve's viewers kept getting more than one event per win") }
        return viewers
    }

    /// The time from now until each stream had one more change event, ms, in the streams' order;
    /// more than one event at once is an error unless `allowingMore`.
    private func arrivals(at streams: [EventStream], allowingMore: Bool = false) throws -> [Double] {
        let start = Clock.now()
        var arrived = [Double?](repeating: nil, count: streams.count)
        var waiting = Set(streams.indices)
        while !waiting.isEmpty {
            var descriptors = waiting.map { pollfd(fd: streams[$0].descriptor, events: Int16(POLLIN), revents: 0) }
            let order = Array(waiting)
            guard poll(&descriptors, nfds_t(descriptors.count), 10_000) > 0 else {
                throw BenchError("\(waiting.count) of \(streams.count) viewers got no event within 10 s")
            }
            for (slot, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                let index = order[slot]
                let events = try streams[index].eventsWaiting()
                guard !events.isEmpty else { continue }
                guard allowingMore || (events.count == 1 && events[0].name == "change") else {
                    throw BenchError("viewer \(index) got \(events.map(\.name)) for one win")
                }
                arrived[index] = Clock.milliseconds(since: start)
                waiting.remove(index)
            }
        }
        return arrived.map { $0 ?? .nan }
    }

    /// N of the scoreboard's controllers, each on its own connection, the first one's cache
    /// read by the others (as scoreboards opened before).
    private func controllersRun(
        count: Int, uri: String, win: () throws -> Void, serverCPU: () -> Double
    ) throws
        -> Controllers
    {
        let store = try PostgreSQLTeamStore.open(conninfo: uri)
        let cacheDirectory = folder + "/fanout-cache-\(teams)"
        let counter = ChangeCounter(count: count)
        let controllers = (0..<count).map { _ in store.standingsController(cacheDirectory: cacheDirectory) }
        for (index, controller) in controllers.enumerated() {
            controller.delegate = counter.delegates[index]
            try controller.performFetch()
            if index == 0 { try controller.saveCache() }
        }
        defer { controllers.forEach { $0.stopTracking() } }
        // Warm: every controller follows.
        for _ in 0..<3 {
            _ = try paced {
                try win(); return try callbacks(of: controllers, counter)
            }
        }

        let clientStart = ProcessUsage.cpuMilliseconds(getpid())
        let serverStart = serverCPU()
        var toEach: [Double] = [], toAll: [Double] = []
        for _ in 0..<wins {
            let arrived = try paced { () throws -> [Double] in
                try win()
                return try callbacks(of: controllers, counter)
            }
            toEach += arrived
            toAll.append(arrived.max() ?? .nan)
        }
        let serverPerWin = (serverCPU() - serverStart) / Double(wins)
        return Controllers(
            count: count, toEach: Percentiles(toEach), toAll: Percentiles(toAll), serverCPUPerWin: serverPerWin,
            clientCPUPerWin: (ProcessUsage.cpuMilliseconds(getpid()) - clientStart) / Double(wins))
    }

    /// The time from now until each controller delivered the callbacks of one more change, ms.
    private func callbacks(
        of controllers: [FetchedResultsController<Team>], _ counter: ChangeCounter
    ) throws
        -> [Double]
    {
        let start = Clock.now()
        let before = counter.delegates.map(\.changes)
        var arrived = [Double?](repeating: nil, count: controllers.count)
        let end = ContinuousClock.now + .seconds(10)
        while arrived.contains(where: { $0 == nil }) {
            let waiting = controllers.indices.filter { arrived[$0] == nil }
            guard ContinuousClock.now < end else {
                throw BenchError("\(waiting.count) of \(controllers.count) controllers saw no change within 10 s")
            }
            // Each controller's socket (a loss) and its next look, as each scoreboard's loop waits.
            var descriptors = waiting.map {
                pollfd(fd: controllers[$0].wakeDescriptor ?? -1, events: Int16(POLLIN), revents: 0)
            }
            let nextLook = waiting.compactMap { controllers[$0].nextLookDeadline }.min() ?? end
            let timeout = max(0, (ContinuousClock.now.duration(to: nextLook) / .milliseconds(1)).rounded(.up))
            _ = poll(&descriptors, nfds_t(descriptors.count), Int32(min(timeout, 10_000)))
            for (slot, descriptor) in descriptors.enumerated() {
                let index = waiting[slot]
                let due = controllers[index].nextLookDeadline.map { $0 <= .now } ?? false
                guard descriptor.revents != 0 || due else { continue }
                try controllers[index].processPendingChanges()
                if counter.delegates[index].changes > before[index] {
                    arrived[index] = Clock.milliseconds(since: start)
                }
            }
        }
        return arrived.map { $0 ?? .nan }
    }

    /// Runs one win's work, then waits out the rest of the interval between wins, so that every
    /// run commits at the same pace.
    private func paced<T>(_ body: () throws -> T) throws -> T {
        let start = Clock.now()
        let value = try body()
        let left = Self.winInterval - Clock.milliseconds(since: start)
        if left > 0 { usleep(useconds_t(left * 1000)) }
        return value
    }

    /// The cluster's postmaster, whose children are every backend.
    private func postmasterID() throws -> pid_t {
        let file = try String(contentsOfFile: cluster.dataFolder + "/postmaster.pid", encoding: .utf8)
        guard let pid = file.split(separator: "\n").first.flatMap({ pid_t($0) }) else {
            throw BenchError("no pid in postmaster.pid")
        }
        return pid
    }

    /// One delegate per controller, counting its change callbacks.
    private final class ChangeCounter {
        final class Delegate: FetchedResultsControllerDelegate {
            var changes = 0
            func controller(_ controller: FetchedResultsController<Team>, didChange object: ObjectChange) {
                changes += 1
            }
            func controller(_ controller: FetchedResultsController<Team>, didFailWith error: any Error) {
                fatalError("a controller failed: \(error)")
            }
        }
        let delegates: [Delegate]
        init(count: Int) { delegates = (0..<count).map { _ in Delegate() } }
    }
}
