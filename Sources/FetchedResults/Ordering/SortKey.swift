#if canImport(Glibc)
    import Glibc
#else
    import Foundation
#endif

/// Sort keys as bytes, for any store: a row's sort values become one byte string whose plain
/// byte order (`memcmp`, shorter first) is exactly the order of the store's `ORDER BY`, row id
/// last. Each store reads its own values and appends them with these functions.
///
/// Why bytes: a million keys held as values cost hundreds of bytes each, and comparing them
/// means switching on types. Encoded keys are compact, live in a few large buffers, and compare
/// with `memcmp`.
///
/// Each sort value is one self-delimiting component, in SQLite's order of storage classes
/// (NULL < numbers < text < blobs; a PostgreSQL column has one type, and NULLs first):
/// - NULL: `01`.
/// - A number: `02`, the nearest double (sign-ordered, big-endian, its trailing `00` bytes left
///   out and each other `00` escaped as `00 FF`), `00`, then the exact distance of an integer
///   from that double (`02` when zero, else `01`/`03` and 8 bytes), so that integers and reals
///   compare by value, exactly. Small integers take a few bytes: 37 is `02 C0 42 80 00 02`.
///   Leaving out trailing zeros keeps the order, since zeros are the least bytes; the escape
///   keeps a shorter double first, as for text.
/// - Text: `03`, the UTF-8 bytes (ASCII letters folded for a case-insensitive order), each
///   `00` escaped as `00 FF`, then `00 00`. Escaping keeps shorter strings first and
///   components prefix-free. Unfolded text orders by bytes: SQLite's `BINARY`, PostgreSQL's
///   `COLLATE "C"`.
/// - A blob: `04` and the bytes, escaped the same way.
/// A descending component has all its bytes inverted (``invert(_:from:)``). The row id ends
/// the key (``appendRowID(_:to:)``, a length byte and the id's bytes), so that no two keys are
/// equal.
package enum SortKey {
    static let nullTag: UInt8 = 0x01, numberTag: UInt8 = 0x02, textTag: UInt8 = 0x03, blobTag: UInt8 = 0x04

    package static func appendNull(to buffer: inout [UInt8]) {
        buffer.append(nullTag)
    }

    package static func appendNumber(integer: Int64, to buffer: inout [UInt8]) {
        let nearest = Double(integer)
        // The distance from the double back to the integer, computed without overflow: the
        // double can be 2^63, one past Int64.max.
        let distance: Int64 =
            nearest >= 9223372036854775808.0
            ? (integer - Int64.max) - 1
            : integer - Int64(nearest)
        appendNumber(nearest: nearest, distance: distance, to: &buffer)
    }

    package static func appendNumber(real: Double, to buffer: inout [UInt8]) {
        appendNumber(nearest: real, distance: 0, to: &buffer)
    }

    package static func appendText(_ bytes: UnsafeBufferPointer<UInt8>, foldingCase: Bool, to buffer: inout [UInt8]) {
        appendBytes(bytes, tag: textTag, fold: foldingCase, to: &buffer)
    }

    package static func appendBlob(_ bytes: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        appendBytes(bytes, tag: blobTag, fold: false, to: &buffer)
    }

    /// Turns the component written since `start` into its descending form.
    package static func invert(_ buffer: inout [UInt8], from start: Int) {
        buffer.withUnsafeMutableBufferPointer { bytes in
            for index in start..<bytes.count { bytes[index] = ~bytes[index] }
        }
    }

    /// Ends a key with its row id, in as few bytes as it needs: a length byte, `80 + n` for an
    /// id ≥ 0 and `7F - n` for a negative one, then the id's low n bytes, big-endian (n the
    /// fewest that hold it: 0 for 0 and -1). Longer ids of each sign sort beyond shorter ones,
    /// so byte order stays numeric order; an id under 2^24 takes 4 bytes, not 8, in a key held
    /// for every row.
    package static func appendRowID(_ rowID: Int64, to buffer: inout [UInt8]) {
        let magnitude = rowID >= 0 ? UInt64(rowID) : UInt64(~rowID)
        let length = (64 - magnitude.leadingZeroBitCount + 7) / 8
        buffer.append(rowID >= 0 ? 0x80 + UInt8(length) : 0x7F - UInt8(length))
        let bits = UInt64(bitPattern: rowID)
        for index in stride(from: length - 1, through: 0, by: -1) {
            buffer.append(UInt8(truncatingIfNeeded: bits >> (8 * index)))
        }
    }

    /// The length of the first component of `key`, whose order is `ascending`: the bytes that
    /// say which section a row is in.
    package static func firstComponentLength(of key: UnsafeBufferPointer<UInt8>, ascending: Bool) -> Int {
        let flip: UInt8 = ascending ? 0 : 0xFF
        switch key[0] ^ flip {
        case nullTag:
            return 1
        case numberTag:
            var index = 1
            while true {
                if key[index] ^ flip == 0 {
                    let next = key[index + 1] ^ flip
                    if next != 0xFF { return next == 0x02 ? index + 2 : index + 10 }
                    index += 2
                } else {
                    index += 1
                }
            }
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
    package static func compare(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(lhs.count, rhs.count)
        if common > 0 {
            let order = memcmp(lhs.baseAddress!, rhs.baseAddress!, common)
            if order != 0 { return Int(order) }
        }
        return lhs.count - rhs.count
    }

    /// ``compare(_:_:)`` for whole keys.
    package static func compare(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        lhs.withUnsafeBufferPointer { lhs in rhs.withUnsafeBufferPointer { rhs in compare(lhs, rhs) } }
    }

    /// The bytes of a key that encode its first sort value, whose order is `ascending`.
    package static func firstComponent(of key: [UInt8], ascending: Bool) -> [UInt8] {
        key.withUnsafeBufferPointer { Array($0[0..<firstComponentLength(of: $0, ascending: ascending)]) }
    }

    /// Whether `key`'s first component differs from `previous` (always, when `previous` is nil);
    /// if so, `previous` becomes it. For a read that names each section as it starts: the
    /// comparison allocates nothing, and the copy is made once per section.
    package static func replaceFirstComponent(_ previous: inout [UInt8]?, from key: [UInt8], ascending: Bool) -> Bool {
        let same = key.withUnsafeBufferPointer { key -> Bool in
            guard let previous else { return false }
            let length = firstComponentLength(of: key, ascending: ascending)
            return previous.withUnsafeBufferPointer { compare(UnsafeBufferPointer(rebasing: key[0..<length]), $0) == 0 }
        }
        if !same { previous = firstComponent(of: key, ascending: ascending) }
        return !same
    }

    // MARK: - Components

    private static func appendNumber(nearest: Double, distance: Int64, to buffer: inout [UInt8]) {
        buffer.append(numberTag)
        let value = nearest == 0 ? 0.0 : nearest  // -0.0 and 0.0 are equal
        let bits = value.bitPattern
        let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        let kept = ordered == 0 ? 0 : 8 - ordered.trailingZeroBitCount / 8
        for index in 0..<kept {
            let byte = UInt8(truncatingIfNeeded: ordered >> (56 - 8 * index))
            buffer.append(byte)
            if byte == 0 { buffer.append(0xFF) }
        }
        buffer.append(0x00)
        if distance == 0 {
            buffer.append(0x02)
        } else {
            buffer.append(distance < 0 ? 0x01 : 0x03)
            appendOrdered(UInt64(bitPattern: distance), to: &buffer)
        }
    }

    /// Written into room for the longest encoding, then appended: an `append` per byte checks
    /// the array's capacity and uniqueness each time, and a load encodes a million keys.
    private static func appendBytes(
        _ bytes: UnsafeBufferPointer<UInt8>, tag: UInt8, fold: Bool, to buffer: inout [UInt8]
    ) {
        append(upTo: 1 + 2 * bytes.count + 2, to: &buffer) { out in
            out[0] = tag
            var index = 1
            for byte in bytes {
                if byte == 0 {
                    out[index] = 0x00
                    out[index + 1] = 0xFF
                    index += 2
                } else {
                    out[index] = fold && byte &- 0x41 < 26 ? byte | 0x20 : byte
                    index += 1
                }
            }
            out[index] = 0x00
            out[index + 1] = 0x00
            return index + 2
        }
    }

    /// Lets `body` write up to `count` bytes into scratch room and appends the ones it wrote (it
    /// returns how many): one copy of those bytes, where growing `buffer` by `count` first
    /// would fill the whole room with zeros, one at a time, for every key of a load.
    private static func append(
        upTo count: Int, to buffer: inout [UInt8], _ body: (UnsafeMutableBufferPointer<UInt8>) -> Int
    ) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { room in
            let written = body(room)
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: room[..<written]))
        }
    }

    /// A signed integer, big-endian with its sign bit flipped, so byte order is numeric order.
    private static func appendOrdered(_ bits: UInt64, to buffer: inout [UInt8]) {
        appendBigEndian(bits ^ (1 << 63), to: &buffer)
    }

    private static func appendBigEndian(_ value: UInt64, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
    }
}
