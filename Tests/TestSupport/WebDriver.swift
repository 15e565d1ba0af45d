import Foundation

/// A real headless Chromium, driven through chromedriver's WebDriver HTTP API (Debian's
/// `chromium` and `chromium-driver`): the tests' browser.
public final class WebDriver: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    private let driver: Process
    private let base: String
    private let session: String
    private let profile = TemporaryDirectory()

    /// Starts chromedriver and a browser whose page is `width`×`height` CSS pixels, at
    /// `scale` device pixels per CSS pixel.
    public init(width: Int = 390, height: Int = 844, scale: Double = 1) throws {
        let port = HTTPClient.freePort()
        base = "http://127.0.0.1:\(port)"
        driver = Process()
        driver.executableURL = URL(fileURLWithPath: "/usr/bin/chromedriver")
        driver.arguments = ["--port=\(port)"]
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        do {
            session = try Self.startSession(
                base: base, profile: profile.path, width: width, height: height, scale: scale)
            // Headless Chromium makes no window narrower than 500 pixels, and its page is less
            // high than its window: the page's own size is set, as a phone's would be.
            let metrics: [String: Any] = [
                "width": width, "height": height, "deviceScaleFactor": scale, "mobile": width < 600,
            ]
            _ = try Self.call(
                session + "/goog/cdp/execute", "POST",
                ["cmd": "Emulation.setDeviceMetricsOverride", "params": metrics])
        } catch {
            Self.stop(driver, base: base)
            throw error
        }
    }

    /// Waits for chromedriver to answer, then starts a headless Chromium; its session's URL.
    private static func startSession(
        base: String, profile: String, width: Int, height: Int, scale: Double
    ) throws -> String {
        let deadline = Date().addingTimeInterval(30)
        var lastError = ""
        while true {
            do {
                let reply = try HTTPClient.request("GET", base + "/status", timeout: 2)
                if reply.status == 200 { break }
                lastError = "status \(reply.status)"
            } catch {
                lastError = "\(error)"
            }
            guard Date() < deadline else {
                throw Failure(description: "chromedriver did not start (make deps installs it): \(lastError)")
            }
            usleep(50_000)
        }
        let arguments = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--hide-scrollbars", "--user-data-dir=\(profile)", "--window-size=\(width),\(height)",
            "--force-device-scale-factor=\(scale)",
        ]
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": ["binary": "/usr/bin/chromium", "args": arguments],
                ]
            ]
        ]
        let reply = try call(base + "/session", "POST", capabilities)
        guard let value = reply as? [String: Any], let id = value["sessionId"] as? String else {
            throw Failure(description: "no WebDriver session: \(String(describing: reply))")
        }
        return base + "/session/" + id
    }

    deinit {
        _ = try? Self.call(session, "DELETE", nil)
        Self.stop(driver, base: base)
    }

    /// Ends chromedriver: it may have been started with SIGTERM ignored (an ignored signal stays
    /// ignored across `exec`), so it is asked to shut down, and killed if it does not.
    private static func stop(_ driver: Process, base: String) {
        _ = try? HTTPClient.request("GET", base + "/shutdown", timeout: 5)
        let deadline = Date().addingTimeInterval(5)
        while driver.isRunning && Date() < deadline { usleep(20_000) }
        if driver.isRunning { kill(driver.processIdentifier, SIGKILL) }
        driver.waitUntilExit()
    }

    /// Opens `url` and waits for it to load.
    public func open(_ url: String) throws {
        _ = try Self.call(session + "/url", "POST", ["url": url])
    }

    /// Runs `script` (a function body; `arguments` in `arguments`) in the page; its return value.
    @discardableResult
    public func run(_ script: String, _ arguments: [Any] = []) throws -> Any? {
        try Self.call(session + "/execute/sync", "POST", ["script": script, "args": arguments])
    }

    /// The first element matching a CSS selector.
    public func element(_ selector: String) throws -> String {
        let value = try Self.call(session + "/element", "POST", ["using": "css selector", "value": selector])
        guard let element = (value as? [String: Any])?.values.first as? String else {
            throw Failure(description: "no element \(selector)")
        }
        return element
    }

    /// Clicks an element as a user would (pointer events on its centre).
    public func click(_ element: String) throws {
        _ = try Self.call(session + "/element/\(element)/click", "POST", [String: Any]())
    }

    /// Keys as the W3C WebDriver API names them (the Unicode private-use code points it maps).
    public enum Key {
        public static let tab = "\u{E004}"
        public static let enter = "\u{E007}"
        /// Shift and Tab together.
        public static let shiftTab = "\u{E008}\u{E004}"
    }

    /// Presses and releases each key in turn, on whatever has the focus, as a keyboard does; a
    /// chord (such as ``Key/shiftTab``) presses its keys in order and releases them in reverse.
    public func press(_ keys: [String]) throws {
        let actions = keys.flatMap { chord in
            let keys = chord.unicodeScalars.map { String($0) }
            return keys.map { ["type": "keyDown", "value": $0] }
                + keys.reversed().map { ["type": "keyUp", "value": $0] }
        }
        let body: [String: Any] = ["actions": [["type": "key", "id": "keyboard", "actions": actions]]]
        _ = try Self.call(session + "/actions", "POST", body)
    }

    /// Makes the page see `prefers-color-scheme: scheme` ("light" or "dark"), as a system set
    /// to it would.
    public func emulate(colorScheme scheme: String) throws {
        let features: [[String: String]] = [["name": "prefers-color-scheme", "value": scheme]]
        _ = try Self.call(
            session + "/goog/cdp/execute", "POST",
            ["cmd": "Emulation.setEmulatedMedia", "params": ["features": features]])
    }

    /// Loads the page again, as the reload button does.
    public func reload() throws {
        _ = try Self.call(session + "/refresh", "POST", [String: Any]())
    }

    /// The page as a PNG.
    public func screenshot() throws -> Data {
        guard let text = try Self.call(session + "/screenshot", "GET", nil) as? String,
            let data = Data(base64Encoded: text)
        else { throw Failure(description: "no screenshot") }
        return data
    }

    /// Checks `condition` until it holds, for at most `timeout` seconds.
    public func wait(timeout: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    private static func call(_ url: String, _ method: String, _ body: Any?) throws -> Any? {
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let reply = try HTTPClient.request(
            method, url, headers: ["Content-Type": "application/json"], body: data, timeout: 120)
        let json = try JSONSerialization.jsonObject(with: reply.body, options: [.fragmentsAllowed]) as? [String: Any]
        guard reply.status == 200 else {
            throw Failure(description: "WebDriver \(method) \(url): \(reply.status) \(reply.text.prefix(500))")
        }
        return json?["value"] ?? nil
    }
}
