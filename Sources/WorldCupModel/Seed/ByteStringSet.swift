#if canImport(Glibc)
    import Glibc
#endif

/// A set of byte strings kept one after another in a single buffer, with an open-addressing
/// table of where each one starts: a million names cost two allocations, not a million.
///
/// Invariants (``_checkInvariants()``): every non-empty slot names a distinct member stored in
/// `storage`, with its hash's tag; the table is a power of two in size and at most half full.
package struct ByteStringSet {
    /// The members' bytes, one after another.
    private var storage: [UInt8] = []
    /// 0 for an empty slot; else a member's offset in `storage` (high 32 bits), 16 bits of its
    /// hash (a tag: a probe reads a member's bytes only when the tags agree, nearly always a
    /// match) and its length (low 16 bits).
    private var slots: [UInt64]
    package private(set) var count = 0

    package init(minimumCapacity: Int = 16) {
        var size = 16
        while size < minimumCapacity * 2 { size *= 2 }
        slots = Array(repeating: 0, count: size)
    }

    /// Makes room for `capacity` members in all, so that inserting up to that many never grows
    /// the table.
    package mutating func reserveCapacity(_ capacity: Int) {
        while capacity * 2 > slots.count { grow() }
    }

    /// Adds `member`; false when it was there already.
    package mutating func insert(_ member: [UInt8]) -> Bool {
        precondition(!member.isEmpty && member.count < 1 << 16, "members are 1 to 65,535 bytes")
        precondition(storage.count + member.count < 1 << 32, "members take at most 4 GB in all")
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        let hash = Self.hash(member)
        let tagged = Self.tag(hash) | UInt64(member.count)
        var index = Int(truncatingIfNeeded: hash) & mask
        while slots[index] != 0 {
            if slots[index] & 0xFFFF_FFFF == tagged, equals(slots[index], member) { return false }
            index = (index + 1) & mask
        }
        slots[index] = UInt64(storage.count) << 32 | tagged
        storage += member
        count += 1
        return true
    }

    /// A hash's tag, in the bits a slot keeps it in (the index takes the low bits).
    private static func tag(_ hash: UInt64) -> UInt64 {
        (hash >> 32 & 0xFFFF) << 16
    }

    private func equals(_ slot: UInt64, _ member: [UInt8]) -> Bool {
        let offset = Int(slot >> 32), length = Int(slot & 0xFFFF)
        return storage.withUnsafeBufferPointer { stored in
            member.withUnsafeBufferPointer { memcmp(stored.baseAddress! + offset, $0.baseAddress!, length) == 0 }
        }
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: 0, count: old.count * 2)
        let mask = slots.count - 1
        for slot in old where slot != 0 {
            let offset = Int(slot >> 32), length = Int(slot & 0xFFFF)
            var index = Int(truncatingIfNeeded: Self.hash(storage[offset..<offset + length])) & mask
            while slots[index] != 0 { index = (index + 1) & mask }
            slots[index] = slot
        }
    }

    /// FNV-1a, then a multiply to spread it over the low bits the table uses.
    package static func hash<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return (hash &* 0x9E37_79B9_7F4A_7C15) >> 16
    }

    /// Checks the invariants (a debug aid, as in swift-collections).
    package func _checkInvariants() {
        precondition(slots.count.nonzeroBitCount == 1 && count * 2 <= slots.count)
        let filled = slots.filter { $0 != 0 }
        let members = filled.map { storage[Int($0 >> 32)..<Int($0 >> 32) + Int($0 & 0xFFFF)] }
        precondition(members.count == count && Set(members.map(Array.init)).count == count)
        precondition(zip(filled, members).allSatisfy { $0 & 0xFFFF_0000 == Self.tag(Self.hash($1)) })
    }
}
