import Foundation

/// Finds the seed file: the one the user named, then `$WORLDCUP_SEED`, then the copies a built
/// or installed binary can find beside itself.
public enum SeedLocator {
    /// The path to use, or an error listing every place that was tried.
    ///
    /// A path the user named explicitly (option or variable) is used as given, even if missing,
    /// so that the error names the file the user meant rather than a fallback.
    public static func locate(
        explicit: String?, environment: [String: String], executablePath: String?
    ) throws -> String {
        if let explicit { return explicit }
        if let fromEnvironment = environment["WORLDCUP_SEED"], !fromEnvironment.isEmpty { return fromEnvironment }
        let candidates = bundledCandidates(executablePath: executablePath)
        if let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) {
            return found
        }
        throw WorldCupError.seedNotFound(tried: ["$WORLDCUP_SEED (not set)"] + candidates)
    }

    /// Places a binary's own copy can be: beside it, in an install prefix's `share/worldcup`,
    /// and, for a binary built inside the source tree (`…/.build/…/worldcup`), the tree's root.
    static func bundledCandidates(executablePath: String?) -> [String] {
        var candidates: [String] = []
        if let executablePath {
            let real = (executablePath as NSString).resolvingSymlinksInPath
            let folder = (real as NSString).deletingLastPathComponent
            candidates.append(folder + "/seed.json")
            candidates.append(((folder as NSString).deletingLastPathComponent) + "/share/worldcup/seed.json")
            if let buildRange = real.range(of: "/.build/") {
                candidates.append(String(real[..<buildRange.lowerBound]) + "/seed.json")
            }
        }
        candidates += ["/usr/local/share/worldcup/seed.json", "/usr/share/worldcup/seed.json"]
        return candidates
    }

    /// This process's executable, resolved through `/proc/self/exe` where Linux provides it.
    public static var currentExecutablePath: String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first
    }
}
