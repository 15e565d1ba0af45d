import Foundation
import TestSupport
import Testing

/// The systemd unit that `make install` puts beside the binary, as systemd reads it, and the
/// README's recipe for it. No systemd runs here: `systemd-analyze` reads the unit file alone.
@Suite struct ServeSystemdUnitTests {
    static let analyze = "/usr/bin/systemd-analyze"
    static let unitName = "worldcup-serve.service"

    /// `make install-files` into a temporary prefix, with the built binary; the installed unit's path.
    static func install(into prefix: TemporaryDirectory) throws -> String {
        let make = try WorldCupProcess.runProgram(
            "/usr/bin/make",
            [
                "-C", WorldCupProcess.packageRoot.path, "install-files", "PREFIX=\(prefix.path)",
                "INSTALL_BIN=\(WorldCupProcess.binary)",
            ])
        try #require(make.status == 0, "\(make.stdout)\(make.stderr)")
        return prefix.path + "/lib/systemd/system/" + unitName
    }

    /// What `systemd-analyze verify` says of a unit file: nothing, when systemd would load it
    /// without a warning (an unknown option or value is only a warning: its status stays 0).
    static func verify(_ unit: String) throws -> ProgramRun {
        // --man=no: the unit's Documentation= pages are not looked up (no man pages here).
        try WorldCupProcess.runProgram(analyze, ["verify", "--man=no", unit])
    }

    @Test func theInstalledUnitVerifiesWithoutAWarningAndIsRemovedByUninstall() throws {
        let prefix = TemporaryDirectory()
        let unit = try Self.install(into: prefix)
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        #expect(
            text.contains("\nExecStart=\(prefix.path)/bin/worldcup serve "), "the installed binary runs: \(text)")
        #expect(!text.contains("@PREFIX@"))
        let verified = try Self.verify(unit)
        #expect(verified.status == 0)
        #expect(verified.stdout.isEmpty && verified.stderr.isEmpty, "\(verified.stdout)\(verified.stderr)")

        // The check has teeth: a misspelt option, or a binary that is not there, is reported.
        for (from, to) in [("\nProtectHome=yes", "\nProtectHom=yes"), ("/bin/worldcup serve", "/bin/nowhere serve")] {
            let broken = prefix.file(
                "broken-\(from.count).service", contents: text.replacingOccurrences(of: from, with: to))
            let report = try Self.verify(broken)
            #expect(!(report.stdout + report.stderr).isEmpty, "\(to) passed unnoticed")
        }

        // systemd's own rating of the sandbox: 0 is the best, 10 the worst; --threshold is in tenths.
        let security = try WorldCupProcess.runProgram(
            Self.analyze, ["security", "--offline=yes", "--threshold=20", "--no-pager", unit])
        let rating = security.stdout.split(separator: "\n").last { $0.contains("Overall exposure level") } ?? ""
        print("serve's systemd unit: \(rating)")
        #expect(security.status == 0, "exposure over 2.0: \(rating)")

        let uninstall = try WorldCupProcess.runProgram(
            "/usr/bin/make", ["-C", WorldCupProcess.packageRoot.path, "uninstall", "PREFIX=\(prefix.path)"])
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(!FileManager.default.fileExists(atPath: unit))
        #expect(!FileManager.default.fileExists(atPath: prefix.path + "/bin/worldcup"))
    }

    /// The README's recipe names the unit that is installed, the store and token folders the unit
    /// gives serve, and a drop-in that systemd reads without a warning.
    @Test func theReadmesRecipeMatchesTheUnit() throws {
        let prefix = TemporaryDirectory()
        let unit = try Self.install(into: prefix)
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        let recipe = try Readme.fencedBlock(language: "sh", startingWith: "sudo make install")
        for command in ["systemctl enable --now ", "journalctl -u ", "systemctl stop "] {
            let line = try #require(recipe.split(separator: "\n").first { $0.contains(command) }, "\(command)")
            let named = line.split(separator: command).last?.split(separator: " ").first.map(String.init)
            #expect(named.map { $0 + ".service" } == Self.unitName, "\(line)")
        }
        // %S is /var/lib for a system service; StateDirectory= makes its folder there.
        #expect(text.contains("\nStateDirectory=worldcup\n"))
        #expect(text.contains(" --db %S/worldcup/worldcup.sqlite "))
        #expect(text.contains("\nEnvironment=XDG_DATA_HOME=%S\n"), "serve keeps tokens in $XDG_DATA_HOME/worldcup")
        let readme = try Readme.text()
        for path in ["/var/lib/worldcup/worldcup.sqlite", "/var/lib/worldcup/serve-tokens/"] {
            #expect(readme.contains("`\(path)`"), "\(path)")
        }

        let dropIn = try Readme.fencedBlock(language: "ini", startingWith: "[Service]\nExecStart=\n")
        let combined = text + "\n" + dropIn.replacingOccurrences(of: "/usr/local/", with: prefix.path + "/")
        let verified = try Self.verify(prefix.file(Self.unitName, contents: combined))
        #expect(verified.status == 0)
        #expect(verified.stdout.isEmpty && verified.stderr.isEmpty, "\(verified.stdout)\(verified.stderr)")
    }
}
