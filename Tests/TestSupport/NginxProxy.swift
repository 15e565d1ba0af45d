import Foundation

/// Debian's nginx on the loopback, in front of a `serve`, with the repository's
/// `deploy/nginx/worldcup.conf` as written but for its two addresses: it listens on a free port
/// and proxies to `serve`'s. Its prefix, main configuration, logs and pid file are in a folder
/// of its own. It is stopped when the value goes away, and by a watchdog if the test process
/// dies any other way.
public final class NginxProxy {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static let binary = "/usr/sbin/nginx"
    public static let shippedConfiguration = ServeProcess.packageRoot.appendingPathComponent(
        "deploy/nginx/worldcup.conf"
    ).path

    public let port: Int
    public let folder: String
    private let process = Process()

    /// `http://127.0.0.1:PORT` without the final slash.
    public var base: String { "http://127.0.0.1:\(port)" }

    /// - Parameter workerConnections: nginx's bound on open connections, two per proxied viewer.
    public init(servePort: Int, folder: String, workerConnections: Int = 256) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw Failure(description: "\(Self.binary) is missing: `make deps` installs nginx.")
        }
        port = HTTPClient.freePort()
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var site = try String(contentsOfFile: Self.shippedConfiguration, encoding: .utf8)
        for (line, replacement) in [
            ("listen 80;", "listen 127.0.0.1:\(port);"), ("server 127.0.0.1:8080;", "server 127.0.0.1:\(servePort);"),
        ] {
            guard site.components(separatedBy: line).count == 2 else {
                throw Failure(description: "\(Self.shippedConfiguration) no longer has the line `\(line)` once")
            }
            site = site.replacingOccurrences(of: line, with: replacement)
        }
        try site.write(toFile: folder + "/worldcup.conf", atomically: true, encoding: .utf8)
        // What /etc/nginx/nginx.conf would hold, every path in the folder.
        let main = """
            daemon off;
            worker_processes 1;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log info;
            worker_rlimit_nofile \(2 * workerConnections + 64);
            events { worker_connections \(workerConnections); }
            http {
                access_log \(folder)/access.log;
                client_body_temp_path \(folder)/client_body;
                proxy_temp_path \(folder)/proxy;
                fastcgi_temp_path \(folder)/fastcgi;
                uwsgi_temp_path \(folder)/uwsgi;
                scgi_temp_path \(folder)/scgi;
                include \(folder)/worldcup.conf;
            }

            """
        try main.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["-p", folder + "/", "-c", folder + "/nginx.conf", "-e", folder + "/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let nginx = process.processIdentifier
        let watchdog =
            "while kill -0 \(getpid()) 2>/dev/null && kill -0 \(nginx) 2>/dev/null; do sleep 1; done; "
            + "kill -TERM \(nginx) 2>/dev/null"
        let guardian = Process()
        guardian.executableURL = URL(fileURLWithPath: "/bin/sh")
        guardian.arguments = ["-c", watchdog]
        try guardian.run()
        let deadline = Date().addingTimeInterval(20)
        while (try? LoopbackSocket.connect(port: port, timeout: 1)).map({ close($0) }) == nil {
            guard process.isRunning, Date() < deadline else {
                stop()
                let log = (try? String(contentsOfFile: folder + "/error.log", encoding: .utf8)) ?? ""
                throw Failure(description: "nginx did not start: \(log)")
            }
            usleep(20_000)
        }
    }

    deinit { stop() }

    /// Stops it at once (SIGTERM, nginx's fast shutdown: open event streams do not hold it).
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// What nginx logged (its errors and notes).
    public var errorLog: String { (try? String(contentsOfFile: folder + "/error.log", encoding: .utf8)) ?? "" }
}
