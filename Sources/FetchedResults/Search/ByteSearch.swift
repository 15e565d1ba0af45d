#if canImport(Glibc)
    import Glibc
#else
    import Foundation
#endif

/// Finds a byte string in a buffer: the scan under a text search of the sort keys (tens of
/// megabytes for a million teams), which must fit in the frame of a key.
///
/// A needle of two bytes or more is tried at sixteen places at once: where its first and its
/// last byte both match, the bytes between are compared (the "generic SIMD" substring search).
/// It beats glibc's `memmem` on the short needles a search is typed with, and `memmem` is
/// hidden from Swift behind `_GNU_SOURCE` anyway. One byte: `memchr`.
enum ByteSearch {
    /// The first index at or after `start` where `needle` occurs in `haystack`, or nil; an empty
    /// needle occurs at `start`.
    static func firstIndex(
        of needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>, from start: Int
    ) -> Int? {
        let length = needle.count
        let end = haystack.count
        guard start <= end else { return nil }
        guard length > 0 else { return start }
        guard end - start >= length, let base = haystack.baseAddress.map(UnsafeRawPointer.init),
            let wanted = needle.baseAddress
        else { return nil }
        if length == 1 {
            guard let found = memchr(base + start, Int32(wanted[0]), end - start) else { return nil }
            return UnsafeRawPointer(found) - base
        }
        let first = SIMD16<UInt8>(repeating: wanted[0])
        let last = SIMD16<UInt8>(repeating: wanted[length - 1])
        var index = start
        while index + length - 1 + 16 <= end {
            let heads = (base + index).loadUnaligned(as: SIMD16<UInt8>.self)
            let tails = (base + index + length - 1).loadUnaligned(as: SIMD16<UInt8>.self)
            // One byte per place, all ones where both ends match: read as two words, whose
            // set bytes name the places to compare.
            let (low, high) = unsafeBitCast((heads .== first) .& (tails .== last), to: (UInt64, UInt64).self)
            if low != 0, let place = compare(places: low, from: index) { return place }
            if high != 0, let place = compare(places: high, from: index + 8) { return place }
            index += 16
        }
        while index + length <= end {
            if haystack[index] == wanted[0] && memcmp(base + index, wanted, length) == 0 { return index }
            index += 1
        }
        return nil

        /// The first of up to 8 places from `start` (a byte of all ones each in `places`) where
        /// the needle's middle matches too.
        func compare(places: UInt64, from start: Int) -> Int? {
            var places = places
            while places != 0 {
                let shift = places.trailingZeroBitCount  // a multiple of 8
                let place = start + shift / 8
                if length == 2 || memcmp(base + place + 1, wanted + 1, length - 2) == 0 { return place }
                places &= ~(0xFF &<< UInt64(shift))
            }
            return nil
        }
    }
}
