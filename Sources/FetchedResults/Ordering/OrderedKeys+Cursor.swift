extension OrderedKeys {
    /// Walks the keys in order from a position, each row's whole key rebuilt in one buffer that
    /// every step reuses: comparing two lists row by row without allocating a key per row.
    package struct Cursor {
        private let keys: OrderedKeys
        private var chunk: Int
        private var index: Int
        /// Rows left to walk, the current one included.
        private var remaining: Int
        /// The current row's whole key.
        package private(set) var key: [UInt8] = []
        package private(set) var rowID: Int64 = 0

        /// A cursor over `range`'s positions, on the first one.
        package init(_ keys: OrderedKeys, range: Range<Int>) {
            self.keys = keys
            remaining = range.count
            (chunk, index) = range.isEmpty ? (0, 0) : keys.locate(range.lowerBound)
            load()
        }

        package var isAtEnd: Bool { remaining == 0 }

        package mutating func advance() {
            remaining -= 1
            index += 1
            if index == keys.chunks[chunk].count, remaining > 0 { (chunk, index) = (chunk + 1, 0) }
            load()
        }

        private mutating func load() {
            guard remaining > 0 else { return }
            let current = keys.chunks[chunk]
            rowID = current.rowIDs[index]
            key.removeAll(keepingCapacity: true)
            key.append(contentsOf: current.prefix)
            key.append(contentsOf: current.bytes[current.keyRange(index)])
        }
    }
}
