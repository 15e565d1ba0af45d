import Foundation
import GRDB

/// Turns a row's sort values into one byte string whose plain byte order (`memcmp`, shorter
/// first) is exactly the order of the request's `ORDER BY`, row id last.
///
/// Why bytes: a million keys held as `[DatabaseValue]` cost hundreds of bytes each, and
/// comparing them means switching on storage classes. Encoded keys are compact, live in a few
/// large buffers, and compare with `memcmp`.
///
/// Each sort value is one self-delimiting component, in SQLite's order of storage classes
/// (NULL < numbers < text < blobs):
/// - NULL: `01`.
/// - A number: `02`, the nearest double (8 bytes, sign-ordered), then the exact distance of an
///   integer from that double (`02` when zero, else `01`/`03` and 8 bytes), so that integers
///   and reals compare by value, exactly, as SQLite compares them.
/// - Text: `03`, the UTF-8 bytes (ASCII letters folded for `NOCASE`), each `00` escaped as
///   `00 FF`, then `00 00`. Escaping keeps shorter strings first and components prefix-free.
/// - A blob: `04` and the bytes, escaped the same way.
/// A descending component has all its bytes inverted. The row id ends the key (8 bytes,
/// sign-ordered), so that no two keys are equal.
struct SortKeyEncoding: Sendable {
    let descriptors: [ColumnSortDescriptor]

    private static let nullTag: UInt8 = 0x01, numberTag: UInt8 = 0x02, textTag: UInt8 = 0x03, blobTag: UInt8 = 0x04

    /// Appends the key of one row to `buffer`.
    func append(_ values: [DatabaseValue], rowID: Int64, to buffer: inout [UInt8]) {
        for (value, descriptor) in zip(values, descriptors) {
            let start = buffer.count
            switch value.storage {
            case .null: buffer.append(Self.nullTag)
            case let .int64(integer): Self.appendNumber(integer: integer, to: &buffer)
            case let .double(real): Self.appendNumber(real: real, to: &buffer)
            case let .string(text):
                var text = text
                text.withUTF8 { Self.appendBytes($0, tag: Self.textTag, fold: descriptor.foldsCase, to: &buffer) }
            case let .blob(data):
                data.withUnsafeBytes { Self.appendBytes($0.bindMemory(to: UInt8.self), tag: Self.blobTag, fold: false, to: &buffer) }
            }
            if !descriptor.ascending { Self.invert(&buffer, from: start) }
        }
        Self.appendOrdered(UInt64(bitPattern: rowID), to: &buffer)
    }

    /// The key of one row.
    func key(_ values: [DatabaseValue], rowID: Int64) -> [UInt8] {
        var key: [UInt8] = []
        append(values, rowID: rowID, to: &key)
        return key
    }

    /// The length of the first component of `key`: the bytes that say which section a row is in.
    func firstComponentLength(of key: UnsafeBufferPointer<UInt8>) -> Int {
        let flip: UInt8 = descriptors[0].ascending ? 0 : 0xFF
        switch key[0] ^ flip {
        case Self.nullTag:
            return 1
        case Self.numberTag:
            return key[9] ^ flip == 0x02 ? 10 : 18
        default:
            var index = 1
            while true {
                if key[index] ^ flip == 0 {
                    if key[index + 1] ^ flip == 0 { return index + 2 }
                    index += 2
                } else {
                    index += 1
                }
            }
        }
    }

    /// The byte order of two keys: negative, zero or positive, like `memcmp`, shorter first.
    static func compare(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(lhs.count, rhs.count)
        if common > 0 {
            let order = memcmp(lhs.baseAddress!, rhs.baseAddress!, common)
            if order != 0 { return Int(order) }
        }
        return lhs.count - rhs.count
    }

    // MARK: - Components

    private static func appendNumber(integer: Int64, to buffer: inout [UInt8]) {
        let nearest = Double(integer)
        // The distance from the double back to the integer, computed without overflow: the
        // double can be 2^63, one past Int64.max.
        let distance: Int64 = nearest >= 9223372036854775808.0
            ? (integer - Int64.max) - 1
            : integer - Int64(nearest)
        appendNumber(nearest: nearest, distance: distance, to: &buffer)
    }

    private static func appendNumber(real: Double, to buffer: inout [UInt8]) {
        appendNumber(nearest: real, distance: 0, to: &buffer)
    }

    private static func appendNumber(nearest: Double, distance: Int64, to buffer: inout [UInt8]) {
        buffer.append(numberTag)
        let value = nearest == 0 ? 0.0 : nearest  // -0.0 and 0.0 are equal in SQLite
        let bits = value.bitPattern
        appendBigEndian(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63), to: &buffer)
        if distance == 0 {
            buffer.append(0x02)
        } else {
            buffer.append(distance < 0 ? 0x01 : 0x03)
            appendOrdered(UInt64(bitPattern: distance), to: &buffer)
        }
    }

    private static func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>, tag: UInt8, fold: Bool, to buffer: inout [UInt8]) {
        buffer.append(tag)
        buffer.reserveCapacity(buffer.count + bytes.count + 2)
        for byte in bytes {
            if byte == 0 {
                buffer.append(0x00)
                buffer.append(0xFF)
            } else {
                buffer.append(fold && byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
            }
        }
        buffer.append(0x00)
        buffer.append(0x00)
    }

    /// A signed integer, big-endian with its sign bit flipped, so byte order is numeric order.
    private static func appendOrdered(_ bits: UInt64, to buffer: inout [UInt8]) {
        appendBigEndian(bits ^ (1 << 63), to: &buffer)
    }

    private static func appendBigEndian(_ value: UInt64, to buffer: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { buffer.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func invert(_ buffer: inout [UInt8], from start: Int) {
        for index in start..<buffer.count { buffer[index] = ~buffer[index] }
    }
}
