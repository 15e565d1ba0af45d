import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import RawStructuredFieldValues
import WorldCupModel

/// A tap's `Idempotency-Key`, as the IETF draft (draft-ietf-httpapi-idempotency-key-header)
/// writes it, a structured-field string (`Idempotency-Key: "8e03978e-…"`), or bare, as an HTTP
/// token (`Idempotency-Key: 8e03978e-…`, what the page sends): both name the same key. Any key
/// the client chooses, up to ``maximumLength`` characters of printable ASCII, is taken.
///
/// The store keeps a key as 16 bytes: a UUID as itself (so a UUID names the same key in either
/// case), any other key as the first 16 bytes of its SHA-256 digest.
enum IdempotencyKey {
    static let maximumLength = 255

    static let name = HTTPField.Name("Idempotency-Key")!

    /// The key a request names in its header.
    static func scoreKey(_ request: Request) throws -> ScoreKey {
        let values = request.headers[values: name]
        guard values.count <= 1 else {
            throw Refusal(.badRequest, "Send one Idempotency-Key header, not \(values.count).")
        }
        guard let value = values.first else {
            throw Refusal(.badRequest, "An Idempotency-Key header is needed: a new key for each tap (a UUID, say).")
        }
        return try scoreKey(naming: text(ofHeader: value))
    }

    /// The key a win's address names (`/teams/ID/wins/KEY`, percent-encoded), as its tap sent it.
    static func scoreKey(inPath segment: Substring) throws -> ScoreKey {
        guard let key = segment.removingPercentEncoding, isPrintable(key), !key.isEmpty,
            key.utf8.count <= maximumLength
        else {
            throw Refusal(
                .notFound,
                "A win is named by the Idempotency-Key its tap was sent with (percent-encoded in the address).")
        }
        return scoreKey(naming: key)
    }

    /// The key in a header's value, quoted or bare.
    static func text(ofHeader value: String) throws -> String {
        let key: String
        if value.hasPrefix("\"") {
            var parser = StructuredFieldValueParser(Array(value.utf8))
            guard let item = try? parser.parseItemFieldValue(), case let .string(text) = item.rfc9651BareItem else {
                throw Refusal(
                    .badRequest,
                    "The Idempotency-Key is not a well-formed quoted string: write it as \"KEY\" in printable ASCII, "
                        + "with \\\" for a quote and \\\\ for a backslash.")
            }
            key = text
        } else {
            guard value.utf8.allSatisfy(isTokenCharacter) else {
                throw Refusal(
                    .badRequest,
                    "The Idempotency-Key has characters a bare key may not have: quote it (\"KEY\"), "
                        + "or use only letters, digits and !#$%&'*+-.^_`|~.")
            }
            key = value
        }
        guard !key.isEmpty else {
            throw Refusal(.badRequest, "The Idempotency-Key is empty: send a new key for each tap (a UUID, say).")
        }
        guard key.utf8.count <= maximumLength else {
            throw Refusal(
                .badRequest,
                "The Idempotency-Key is \(key.utf8.count) characters long: at most \(maximumLength) are taken.")
        }
        return key
    }

    /// The 16 bytes the store keeps for a key.
    static func scoreKey(naming key: String) -> ScoreKey {
        if let uuid = UUID(uuidString: key) { return ScoreKey(uuid: uuid) }
        let digest = Array(SHA256.hash(data: Array(key.utf8)))
        let uuid = digest.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
        return ScoreKey(uuid: UUID(uuid: uuid))
    }

    /// RFC 9110's `tchar`: what a token (a bare key) is made of.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Printable ASCII, space included: what a quoted key may hold.
    private static func isPrintable(_ text: String) -> Bool {
        text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }
}
