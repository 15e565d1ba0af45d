/// The first number a repeated name's next copy may take, by the name's hash: an open-addressing
/// table of hashes and numbers, since a `Dictionary` would hash each key again with SipHash
/// when the name's hash is already at hand, and `generate` asks for every repeated name.
///
/// Invariants: the table is a power of two in size and at most half full; a slot with number 0
/// is empty (the numbers start at 2).
struct SuffixHints {
    private var hashes = [UInt64](repeating: 0, count: 1024)
    private var numbers = [UInt32](repeating: 0, count: 1024)
    private var count = 0

    /// The number noted for `hash`, or 2 when none is.
    func number(for hash: UInt64) -> Int {
        let slot = find(hash)
        return numbers[slot] == 0 ? 2 : Int(numbers[slot])
    }

    /// Notes `number` for `hash`.
    mutating func note(_ number: Int, for hash: UInt64) {
        var slot = find(hash)
        if numbers[slot] == 0 {
            if (count + 1) * 2 > hashes.count {
                grow()
                slot = find(hash)
            }
            count += 1
            hashes[slot] = hash
        }
        numbers[slot] = UInt32(clamping: number)
    }

    /// The slot holding `hash`, or the empty slot where it would go.
    private func find(_ hash: UInt64) -> Int {
        let mask = hashes.count - 1
        // The set's hashes are spread over their low bits already.
        var slot = Int(truncatingIfNeeded: hash) & mask
        while numbers[slot] != 0 && hashes[slot] != hash { slot = (slot + 1) & mask }
        return slot
    }

    private mutating func grow() {
        let old = zip(hashes, numbers).filter { $0.1 != 0 }
        hashes = [UInt64](repeating: 0, count: hashes.count * 2)
        numbers = [UInt32](repeating: 0, count: numbers.count * 2)
        for (hash, number) in old {
            let slot = find(hash)
            hashes[slot] = hash
            numbers[slot] = number
        }
    }
}
