/// Where the store lives when the user does not say.
///
/// Follows the XDG base directory convention: `$XDG_DATA_HOME/worldcup/worldcup.sqlite`,
/// falling back to `~/.local/share/worldcup/`.
public enum StoreLocation {
    public static func defaultDatabasePath(environment: [String: String]) throws -> String {
        try baseDirectory(variable: "XDG_DATA_HOME", fallback: ".local/share", environment: environment)
            + "/worldcup/worldcup.sqlite"
    }

    /// Where the scoreboard keeps its result caches: `$XDG_CACHE_HOME/worldcup`, falling back
    /// to `~/.cache/worldcup`; nil when neither can be known (the scoreboard then runs without).
    public static func defaultCacheDirectory(environment: [String: String]) -> String? {
        (try? baseDirectory(variable: "XDG_CACHE_HOME", fallback: ".cache", environment: environment)).map {
            $0 + "/worldcup"
        }
    }

    /// Where `serve` keeps the scorer tokens it made (the store keeps only their digests), so
    /// that a restarted `serve` can print the scorer link again:
    /// `$XDG_DATA_HOME/worldcup/serve-tokens`; nil when no home is known.
    public static func serveTokenDirectory(environment: [String: String]) -> String? {
        (try? baseDirectory(variable: "XDG_DATA_HOME", fallback: ".local/share", environment: environment))
            .map { $0 + "/worldcup/serve-tokens" }
    }

    private static func baseDirectory(
        variable: String, fallback: String, environment: [String: String]
    ) throws -> String {
        // The XDG spec says relative values are invalid and must be ignored.
        if let value = environment[variable], value.hasPrefix("/") {
            return value
        }
        guard let home = environment["HOME"], !home.isEmpty else {
            throw WorldCupError.noHomeDirectory(variable: variable)
        }
        return home + "/" + fallback
    }
}
