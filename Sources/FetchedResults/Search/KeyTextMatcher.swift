#if canImport(Glibc)
    import Glibc
#else
    import Foundation
#endif

/// Says which keys of a chunk hold a text inside one of their text components: "the sort value
/// k contains these characters", answered from the encoded keys alone (see ``SortKey``).
///
/// A text component holds the value's UTF-8 bytes as its collation folds them, `00` escaped as
/// `00 FF`, ended by `00 00`, every byte inverted when the component descends. The needle is the
/// text encoded the same way, so a match in the value is a match of bytes inside the component.
/// The needle comes from a Swift string, so it never holds `FF` (no UTF-8 byte is `FF`) nor a
/// lone `00`: a match can neither start on the second byte of an escape nor take in the end.
///
/// A chunk's keys start with a shared prefix, read once; the rest of each key is read only where
/// the needle was found in the chunk's bytes (one fast scan, ``ByteSearch``), to check that the
/// match lies inside component k and not in another component, a row id or the next key.
package struct KeyTextMatcher: Sendable {
    /// The encoded needle.
    let needle: [UInt8]
    let component: Int
    /// `0x00` or `0xFF` per component up to `component`: what its bytes are XORed with.
    let flips: [UInt8]

    /// - Parameters:
    ///   - text: the characters looked for.
    ///   - component: which sort value (0 for the first sort descriptor) is searched.
    ///   - ascending: the direction of every sort value up to `component`.
    ///   - foldsCase: whether component `component` folds ASCII letters (`NOCASE`).
    package init(text: String, component: Int, ascending: [Bool], foldsCase: Bool) {
        precondition(component >= 0 && component < ascending.count, "sort value \(component) is not in the keys")
        var encoded: [UInt8] = []
        var text = text
        text.withUTF8 { SortKey.appendText($0, foldingCase: foldsCase, to: &encoded) }
        var needle = Array(encoded.dropFirst().dropLast(2))  // no tag, no end
        if !ascending[component] { needle = needle.map { ~$0 } }
        self.needle = needle
        self.component = component
        flips = ascending.prefix(component + 1).map { $0 ? 0x00 : 0xFF }
    }

    /// Whether every key this one matches also matches `other`'s needle on the same component:
    /// the other's needle contains this one's.
    func isNarrowed(by other: KeyTextMatcher) -> Bool {
        guard component == other.component, flips == other.flips else { return false }
        if needle.isEmpty { return true }
        return needle.withUnsafeBufferPointer { needle in
            other.needle.withUnsafeBufferPointer { ByteSearch.firstIndex(of: needle, in: $0, from: 0) != nil }
        }
    }

    /// Calls `body` with the index of each key among `indices` of `chunk` whose component holds
    /// the needle, in order, until `body` returns false.
    func forEachMatch(in chunk: OrderedKeys.Chunk, indices: Range<Int>, _ body: (Int) -> Bool) {
        guard !indices.isEmpty else { return }
        flips.withUnsafeBufferPointer { flips in
            needle.withUnsafeBufferPointer { needle in
                chunk.prefix.withUnsafeBufferPointer { prefix in
                    chunk.bytes.withUnsafeBufferPointer { bytes in
                        chunk.ends.withUnsafeBufferPointer { ends in
                            let keys = KeyBytes(bytes: bytes, ends: ends)
                            let scan = ChunkScan(needle: needle, flips: flips, prefix: prefix, keys: keys)
                            scan.forEachMatch(indices, body)
                        }
                    }
                }
            }
        }
    }
}

/// One chunk searched for one needle: its shared prefix read once, then its keys.
private struct ChunkScan {
    let needle: UnsafeBufferPointer<UInt8>
    let flips: UnsafeBufferPointer<UInt8>
    let prefix: UnsafeBufferPointer<UInt8>
    let keys: KeyBytes
    /// The reader after the shared prefix.
    let shared: ComponentReader

    init(
        needle: UnsafeBufferPointer<UInt8>, flips: UnsafeBufferPointer<UInt8>, prefix: UnsafeBufferPointer<UInt8>,
        keys: KeyBytes
    ) {
        (self.needle, self.flips, self.prefix, self.keys) = (needle, flips, prefix, keys)
        var reader = ComponentReader()
        reader.read(prefix, flips: flips)
        shared = reader
    }

    func forEachMatch(_ indices: Range<Int>, _ body: (Int) -> Bool) {
        // The component ends inside the shared prefix: every key matches, or none.
        if shared.isFinished {
            guard let content = shared.content, contains(UnsafeBufferPointer(rebasing: prefix[content])) else { return }
            for index in indices where !body(index) { return }
            return
        }
        // The prefix ends inside the component: the start of its text is the same in every key.
        var straddling: [Int] = []
        if let start = shared.contentStart {
            let partial = UnsafeBufferPointer(rebasing: prefix[start...])
            if contains(partial) {
                for index in indices where !body(index) { return }
                return
            }
            // The lengths of the needle's starts that end the prefix: a key whose own bytes go
            // on with the rest of the needle matches across the two.
            straddling = (1..<max(1, needle.count)).filter { length in
                length <= partial.count
                    && memcmp(partial.baseAddress! + partial.count - length, needle.baseAddress!, length) == 0
            }
        }
        if needle.isEmpty || !straddling.isEmpty {
            keyByKey(indices, straddling: straddling, body)
        } else {
            scanBytes(indices, body)
        }
    }

    private func contains(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        ByteSearch.firstIndex(of: needle, in: text, from: 0) != nil
    }

    /// Each key read whole: when a match may start in the shared prefix, or for an empty needle.
    private func keyByKey(_ indices: Range<Int>, straddling: [Int], _ body: (Int) -> Bool) {
        for index in indices {
            let rest = keys.rest(index)
            var reader = shared
            reader.read(rest, flips: flips)
            guard let content = reader.content else { continue }
            // The text's bytes in this key's own bytes.
            let lower = max(0, content.lowerBound - prefix.count), upper = content.upperBound - prefix.count
            var found = needle.isEmpty
            for length in straddling where !found {
                let tail = needle.count - length
                found = tail <= upper && memcmp(rest.baseAddress!, needle.baseAddress! + length, tail) == 0
            }
            if !found && lower <= upper { found = contains(UnsafeBufferPointer(rebasing: rest[lower..<upper])) }
            if found && !body(index) { return }
        }
    }

    /// One scan of the chunk's bytes; each place found is checked in its key.
    private func scanBytes(_ indices: Range<Int>, _ body: (Int) -> Bool) {
        let scanned = UnsafeBufferPointer(rebasing: keys.bytes[0..<Int(keys.ends[indices.upperBound - 1])])
        var from = keys.start(indices.lowerBound)
        var index = indices.lowerBound
        while let hit = ByteSearch.firstIndex(of: needle, in: scanned, from: from) {
            index = keys.index(holding: hit, from: index, before: indices.upperBound)
            var reader = shared
            reader.read(keys.rest(index), flips: flips)
            let place = prefix.count + hit - keys.start(index)
            if let content = reader.content, place >= content.lowerBound, place + needle.count <= content.upperBound {
                if !body(index) { return }
                index += 1
                guard index < indices.upperBound else { return }
                from = keys.start(index)
            } else {
                from = hit + 1
            }
        }
    }
}

/// A chunk's key bytes after their shared prefix, as `OrderedKeys.Chunk` keeps them.
private struct KeyBytes {
    let bytes: UnsafeBufferPointer<UInt8>
    let ends: UnsafeBufferPointer<Int32>

    func start(_ index: Int) -> Int { index == 0 ? 0 : Int(ends[index - 1]) }

    func rest(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[start(index)..<Int(ends[index])])
    }

    /// The key, from `first` on and before `limit`, whose bytes hold `offset`.
    func index(holding offset: Int, from first: Int, before limit: Int) -> Int {
        if Int(ends[first]) > offset { return first }  // most often: a match in the key where the scan went on
        var (low, high) = (first + 1, limit - 1)
        while low < high {
            let middle = (low + high) / 2
            if Int(ends[middle]) <= offset { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// Reads a key's components from its start up to the end of component `flips.count - 1`, the
/// target, and says where the target's text lies. It can stop at the end of one buffer and go
/// on with the next: a chunk's prefix is read once and the reader copied for each key's rest
/// (a few words, no reference: copies cost nothing).
struct ComponentReader {
    private enum Phase {
        case tag
        /// A number's double, up to the `00` that ends it; `afterZero`: the last byte read was
        /// a `00` (an escape, or the end when a mark follows).
        case double(afterZero: Bool)
        /// The 8 bytes of a number's distance from its double.
        case distance(left: Int)
        /// Text or blob bytes; `afterZero`: the last byte read was a `00` (an escape or the end).
        case bytes(afterZero: Bool)
    }

    private var component = 0
    private var phase = Phase.tag
    /// Bytes read so far, over every buffer.
    private var offset = 0
    /// Where the target's characters start, once its text tag is read; nil when not yet read or
    /// when the target is not text (NULL, a number, a blob).
    private(set) var contentStart: Int?
    /// Where they end (its `00 00`), once read.
    private var contentEnd: Int?
    /// Whether the whole target was read.
    private(set) var isFinished = false

    /// The target's characters, once it was read whole and found to be text.
    var content: Range<Int>? {
        guard isFinished, let contentStart, let contentEnd else { return nil }
        return contentStart..<contentEnd
    }

    /// Reads on, until the target ends or the buffer does.
    ///
    /// - Parameter flips: `0x00` or `0xFF` for each component up to the target.
    mutating func read(_ buffer: UnsafeBufferPointer<UInt8>, flips: UnsafeBufferPointer<UInt8>) {
        var index = 0
        let count = buffer.count
        while index < count && !isFinished {
            let flip = flips[component]
            switch phase {
            case .tag:
                let tag = buffer[index] ^ flip
                index += 1
                switch tag {
                case SortKey.nullTag: endComponent(target: flips.count - 1)
                case SortKey.numberTag: phase = .double(afterZero: false)
                case SortKey.textTag where component == flips.count - 1:
                    contentStart = offset + index
                    phase = .bytes(afterZero: false)
                default:
                    // A blob holds no text to match; another component's text or blob is skipped.
                    if component == flips.count - 1 { isFinished = true } else { phase = .bytes(afterZero: false) }
                }
            case .double(afterZero: false):
                let byte = buffer[index] ^ flip
                index += 1
                if byte == 0 { phase = .double(afterZero: true) }
            case .double(afterZero: true):
                let mark = buffer[index] ^ flip
                index += 1
                switch mark {
                case 0xFF: phase = .double(afterZero: false)  // an escaped 00
                case 0x02: endComponent(target: flips.count - 1)
                default: phase = .distance(left: 8)
                }
            case .distance(let left):
                let step = min(left, count - index)
                index += step
                if step == left { endComponent(target: flips.count - 1) } else { phase = .distance(left: left - step) }
            case .bytes(afterZero: true):
                let byte = buffer[index] ^ flip
                index += 1
                if byte == 0 {
                    endComponent(target: flips.count - 1, contentEnd: offset + index - 2)
                } else {
                    phase = .bytes(afterZero: false)  // an escaped 00
                }
            case .bytes(afterZero: false):
                // Straight to the next 00 (after inverting: the flip byte).
                guard let zero = memchr(buffer.baseAddress! + index, Int32(flip), count - index) else {
                    index = count
                    break
                }
                index = UnsafeRawPointer(zero) - UnsafeRawPointer(buffer.baseAddress!) + 1
                phase = .bytes(afterZero: true)
            }
        }
        offset += count
    }

    private mutating func endComponent(target: Int, contentEnd: Int? = nil) {
        if component == target {
            self.contentEnd = contentEnd
            isFinished = true
        } else {
            component += 1
            phase = .tag
        }
    }
}
