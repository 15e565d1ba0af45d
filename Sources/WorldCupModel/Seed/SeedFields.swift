import Foundation

/// One entry's fields as UTF-8 bytes, already checked and trimmed by ``SeedEntry``'s rules,
/// valid only during the call that receives them: the store binds them to its insert statement
/// as they are, so a million-entry import makes no `String` per field.
package struct SeedFields {
    package var name: UnsafeRawBufferPointer
    package var zone: UnsafeRawBufferPointer
    /// Nil when the entry has no image.
    package var image: UnsafeRawBufferPointer?
    package var wins: Int64

    package init(
        name: UnsafeRawBufferPointer, zone: UnsafeRawBufferPointer, image: UnsafeRawBufferPointer?, wins: Int64
    ) {
        self.name = name
        self.zone = zone
        self.image = image
        self.wins = wins
    }

    /// Calls `body` with the fields of `entry`.
    package static func of<T>(_ entry: SeedEntry, _ body: (SeedFields) throws -> T) rethrows -> T {
        var name = entry.teamName, zone = entry.qualifyingZone, image = entry.imageName
        return try name.withUTF8 { name in
            try zone.withUTF8 { zone in
                func fields(_ image: UnsafeRawBufferPointer?) -> SeedFields {
                    SeedFields(
                        name: UnsafeRawBufferPointer(name), zone: UnsafeRawBufferPointer(zone), image: image,
                        wins: Int64(entry.wins))
                }
                guard image != nil else { return try body(fields(nil)) }
                return try image!.withUTF8 { try body(fields(UnsafeRawBufferPointer($0))) }
            }
        }
    }

    /// The entry these fields hold.
    package var entry: SeedEntry {
        SeedEntry(
            teamName: Self.text(name), qualifyingZone: Self.text(zone), imageName: image.map(Self.text), wins: Int(wins)
        )
    }

    package static func text(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `bytes` are a name or zone that ``SeedEntry/validatedText(_:)`` keeps as they
    /// are: not empty, at most ``SeedEntry/maximumTextLength`` bytes (so at most as many
    /// characters), no NUL, and no space of any kind to trim at either end (an ASCII letter,
    /// digit or sign there; anything else is left to the full rule).
    package static func isPlainText(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let first = bytes.first, let last = bytes.last, bytes.count <= SeedEntry.maximumTextLength else {
            return false
        }
        return (0x21...0x7E).contains(first) && (0x21...0x7E).contains(last) && !holdsNUL(bytes)
    }

    /// Whether `bytes` hold a NUL (see ``SeedEntry/nul``).
    package static func holdsNUL(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let start = bytes.baseAddress else { return false }
        return memchr(start, 0, bytes.count) != nil
    }
}
