import Foundation

/// One entry's values, one for each of ``Team/userFields`` in order, as UTF-8 bytes and
/// numbers, already checked and trimmed by ``SeedEntry``'s rules, valid only during the call
/// that receives them: the store binds them to its insert statement as they are, so a
/// million-entry import makes no `String` per field.
///
/// A text field holds `.text`, an optional one `.text` or `.null`, a count `.number` (its seed
/// default when the file left it out).
package struct SeedFields {
    /// One field's value as a file gives it.
    package enum Value {
        case absent
        case null
        case text(UnsafeRawBufferPointer)
        case number(Int64)
    }

    package var values: UnsafeBufferPointer<Value>

    package init(values: UnsafeBufferPointer<Value>) {
        self.values = values
    }

    /// Calls `body` with the fields of `entry`.
    package static func of<T>(_ entry: SeedEntry, _ body: (SeedFields) throws -> T) rethrows -> T {
        let fieldValues = Team.userFields.map { $0.value(of: entry.team) }
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for case let .text(text) in fieldValues {
            bytes += text.utf8
            ends.append(bytes.count)
        }
        return try bytes.withUnsafeBytes { bytes in
            var start = 0, textIndex = 0
            let values = fieldValues.map { value -> Value in
                switch value {
                case .text:
                    defer { start = ends[textIndex]; textIndex += 1 }
                    // A text's bytes, never a null pointer (which would bind NULL): an empty text is text.
                    let base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
                    return .text(UnsafeRawBufferPointer(start: base + start, count: ends[textIndex] - start))
                case let .number(number): return .number(Int64(number))
                case .null: return .null
                }
            }
            return try values.withUnsafeBufferPointer { try body(SeedFields(values: $0)) }
        }
    }

    /// The entry these fields hold.
    package var entry: SeedEntry {
        var team = Team.unfilled
        for (field, value) in zip(Team.userFields, values) {
            switch (field.kind, value) {
            case let (.text(path), .text(bytes)): team[keyPath: path] = Self.text(bytes)
            case let (.optionalText(path), .text(bytes)): team[keyPath: path] = Self.text(bytes)
            case let (.count(path, _), .number(number)): team[keyPath: path] = Int(number)
            default: break
            }
        }
        return SeedEntry(team)
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
