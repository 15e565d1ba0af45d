import Foundation

/// The name of a store's standings cache: one file per store, "standings-" and a hash of where
/// the store is, so that two stores never share a cache.
package enum StandingsCacheName {
    /// - Parameter resolvingFilePath: `store` is a file path: hash its full, resolved form, so
    ///   the same file reached by two paths shares one cache.
    package static func make(for store: String, resolvingFilePath: Bool) -> String {
        let identity =
            resolvingFilePath
            ? URL(fileURLWithPath: store).standardizedFileURL.resolvingSymlinksInPath().path : store
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a: stable across runs, unlike hashValue
        for byte in identity.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return "standings-" + String(hash, radix: 16)
    }
}
