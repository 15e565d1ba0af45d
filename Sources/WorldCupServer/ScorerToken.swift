import Crypto
import Foundation
import WorldCupModel

/// The scorer token: random (256 bits), shown once in the scorer link, checked by its SHA-256
/// digest, which is all the store keeps.
///
/// Every `serve` following one store accepts the same token, across restarts, because the
/// digest is in the store. The token itself is kept only in a file of this user's
/// (`$XDG_DATA_HOME/worldcup/serve-tokens/`, mode 0600) so that a restarted `serve` can print
/// the scorer link again; a `serve` without that file still accepts the token.
struct ScorerToken: Sendable {
    /// The digest every request's token is compared with.
    let digest: [UInt8]

    /// The token itself, when this machine knows it (it made it, or kept its file).
    let token: String?

    /// The token `Authorization: Bearer …` carries: whether it is this one, in constant time.
    func accepts(_ presented: Substring) -> Bool {
        let presentedDigest = Self.digest(of: String(presented))
        guard presentedDigest.count == digest.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(presentedDigest, digest) { difference |= a ^ b }
        return difference == 0
    }

    /// SHA-256 of the token's UTF-8 bytes.
    static func digest(of token: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(token.utf8)))
    }

    /// A new token: 32 random bytes from the system's generator, base64url without padding.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The token in force for `store`: the one whose digest the store keeps, or a new one when
    /// there is none or `rotating`.
    static func prepare(
        digestInStore: [UInt8]?, rotating: Bool, folder: String?,
        keep: ([UInt8], Bool) throws -> [UInt8]
    ) throws -> ScorerToken {
        if let digestInStore, !rotating {
            return ScorerToken(digest: digestInStore, token: folder.flatMap { read(digestInStore, in: $0) })
        }
        let token = make()
        let made = digest(of: token)
        let inForce = try keep(made, rotating)
        guard inForce == made else {
            // Another `serve` made one first: use its token.
            return ScorerToken(digest: inForce, token: folder.flatMap { read(inForce, in: $0) })
        }
        if let folder { save(token, digest: made, in: folder) }
        return ScorerToken(digest: made, token: token)
    }

    private static func fileName(_ digest: [UInt8]) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    private static func read(_ digest: [UInt8], in folder: String) -> String? {
        guard let data = FileManager.default.contents(atPath: folder + "/" + fileName(digest)) else { return nil }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Self.digest(of: token) == digest ? token : nil
    }

    /// Writes the token where only this user may read it (created 0600, never readable by
    /// others even for a moment); a failure costs only the link's reprint after a restart.
    private static func save(_ token: String, digest: [UInt8], in folder: String) {
        try? FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(folder + "/" + fileName(digest), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let line = Array((token + "\n").utf8)
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
