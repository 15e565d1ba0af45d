import ArgumentParser
import Logging

/// `serve --log-level trace…critical`: swift-log's levels by their names, which the help and the
/// shell completions list, and a mistyped one is refused with (a usage error, status 64).
extension Logger.Level: @retroactive ExpressibleByArgument {}
