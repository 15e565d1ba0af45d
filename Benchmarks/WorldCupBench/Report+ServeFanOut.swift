/// `serve` for a thousand viewers, beside N terminal-style controllers (issue 26).
extension Report {
    func serveFanOutSection() -> String {
        guard !serveFanOut.isEmpty else { return "" }
        var text = """

            ## Serve: a win → a thousand viewers, beside N controllers (ms)

            A throw-away PostgreSQL server on this machine (Unix socket, `fsync` off, `max_connections`
            100, PostgreSQL's default). *Serve*: the release binary's
            `worldcup serve` following the store with its one results controller; 1,000 event streams
            on loopback, resumed at the current position (no snapshot), all read by one thread of the
            bench (`poll`). *N controllers*: the scoreboard's own standings controller N times, each
            on its own connection, followed by one thread of the bench as N scoreboards share the
            machine's two cores. Each +1 win is committed by another connection, one every 20 ms at
            most; its time runs from the commit's return to each screen's having it (the event read;
            the callbacks delivered). *To all*: until the last of them had it. *Server CPU*: every
            PostgreSQL process of the cluster, per win; *bare*: nobody following. While serve's wins
            are timed, its `/metrics` is read every second, as a Prometheus would. *Beside a stalled
            viewer*: the same wins with one more viewer that reads nothing. *Through nginx*: then the
            same number of viewers reading through Debian's nginx with `deploy/nginx/worldcup.conf`
            in front of serve, on loopback.

            | teams | screens | to each p50 / p99 / max | to all p50 / p99 / max | server CPU per win | follower's CPU per win |
            |---:|---|---:|---:|---:|---:|

            """
        func triple(_ value: Percentiles) -> String { "\(Self.pair(value)) / \(Self.ms(value.max))" }
        for row in serveFanOut {
            let teams = Self.count(row.teams)
            text += "| \(teams) | nobody (bare commit) | | | \(Self.ms(row.bareServerCPUPerWin)) ms | |\n"
            text +=
                "| \(teams) | serve, \(row.viewers) viewers | \(triple(row.toEachViewer)) | "
                + "**\(triple(row.toAllViewers))** | \(Self.ms(row.serverCPUPerWinWithServe)) ms | "
                + "\(Self.ms(row.serveCPUPerWin)) ms (serve) |\n"
            text +=
                "| \(teams) | serve, \(row.viewers) viewers beside a stalled viewer | | "
                + "\(triple(row.toAllBesideStalledViewer)) | | |\n"
            text +=
                "| \(teams) | serve, \(row.viewers) viewers through nginx | | "
                + "\(triple(row.toAllViewersThroughNginx)) | | |\n"
            for controllers in row.controllers {
                text +=
                    "| \(teams) | \(controllers.count) controllers | \(triple(controllers.toEach)) | "
                    + "\(triple(controllers.toAll)) | \(Self.ms(controllers.serverCPUPerWin)) ms | "
                    + "\(Self.ms(controllers.clientCPUPerWin)) ms (all \(controllers.count)) |\n"
            }
        }
        text += "\nThe server's CPU per win, N controllers ÷ serve with 1,000 viewers (both count the commit's own): "
        text +=
            serveFanOut.map { row in
                let ratios = row.controllers.map {
                    "N = \($0.count): " + Self.ratio($0.serverCPUPerWin / row.serverCPUPerWinWithServe)
                }
                return "\(Self.count(row.teams)) teams: " + ratios.joined(separator: ", ")
            }.joined(separator: "; ") + ".\n"
        text +=
            "\nServe's memory per viewer (resident, grown from before the viewers came, ÷ 1,000) and its "
            + "connections to the server while they followed: "
            + serveFanOut.map {
                "\(Self.count($0.teams)) teams: \(String(format: "%.1f", $0.serveKilobytesPerViewer)) KB, "
                    + "\($0.serveConnections) connections"
            }.joined(separator: "; ") + ". `/metrics` was read "
            + serveFanOut.map { "\($0.metricsScrapes) times at \(Self.count($0.teams)) teams" }.joined(separator: ", ")
            + " while serve's CPU per win was measured.\n"
        return text
    }

    /// SPEC §6's lines for the thousand viewers, at the largest size measured.
    func serveFanOutTargets(_ line: (String, String, String, Bool) -> String) -> String {
        guard let row = serveFanOut.max(by: { $0.teams < $1.teams }) else { return "" }
        let teams = Self.count(row.teams)
        return line(
            "serve: a win → all \(row.viewers) viewers, p99, at \(teams)", Self.ms(row.toAllViewers.p99) + " ms",
            "≤ 50 ms", row.toAllViewers.p99 <= 50)
            + line(
                "serve: a win → all \(row.viewers) viewers through nginx, p99, at \(teams)",
                Self.ms(row.toAllViewersThroughNginx.p99) + " ms", "≤ 50 ms", row.toAllViewersThroughNginx.p99 <= 50)
            + line(
                "serve: memory per viewer, at \(teams)", String(format: "%.1f KB", row.serveKilobytesPerViewer),
                "≤ 50 KB", row.serveKilobytesPerViewer <= 50)
            + line(
                "serve: connections to the server, at \(teams)", "\(row.serveConnections)", "≤ 5",
                row.serveConnections <= 5)
    }
}
