import Foundation

extension ResultsCacheFile {
    /// The cache at `url` when it exists, is whole and undamaged, and matches `validity`;
    /// nil otherwise. Reads the whole file at once.
    package static func read(from url: URL, expecting validity: Validity) -> (header: Header, keys: OrderedKeys)? {
        guard var reader = Reader(url: url, expecting: validity), reader.read(rows: .max),
            let keys = reader.finish()
        else { return nil }
        return (reader.header, keys)
    }

    /// Reads a cache file a part at a time, so that an app can spread a big one over several
    /// short steps (a big file read whole would hold up a frame); ``finish()`` gives the
    /// ordering once every part is read and the checksum matches.
    ///
    /// The file stays open from the header on: a cache saved meanwhile replaces the file's
    /// name, not the file being read.
    package struct Reader {
        package let header: Header
        private let handle: FileHandle
        private var checksum = Checksum()
        private var chunks: [OrderedKeys.Chunk] = []
        private var rowsRead = 0
        /// Filled as the chunks are read, so that ``finish()`` need not visit every row again.
        private var locator: RowLocator

        /// Opens the cache at `url` and reads its header; nil when there is no file, or it is not
        /// a cache, or its header does not match `validity`.
        package init?(url: URL, expecting validity: Validity) {
            guard let handle = try? FileHandle(forReadingFrom: url),
                let start = Self.read(magic.count + 4, from: handle), Array(start.prefix(magic.count)) == magic
            else { return nil }
            let headerLength = Int(
                UInt32(littleEndian: start.suffix(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }))
            guard headerLength < 64 << 20, let headerData = Self.read(headerLength, from: handle),
                let header = try? JSONDecoder().decode(Header.self, from: headerData),
                header.validity == validity, header.chunkCount >= 0, header.rowCount >= 0
            else { return nil }
            self.handle = handle
            self.header = header
            chunks.reserveCapacity(header.chunkCount)
            locator =
                header.rowIDRange.map { RowLocator(expecting: header.rowCount, within: $0) } ?? RowLocator()
        }

        /// Whether every chunk the header announces has been read.
        package var isComplete: Bool { chunks.count == header.chunkCount }

        /// Reads chunks until at least `rows` more rows are read or every chunk is; false when the
        /// file ends early or a chunk is damaged (the reader is then of no further use).
        package mutating func read(rows: Int) -> Bool {
            var read = 0
            while read < rows, !isComplete {
                guard let chunk = readChunk() else { return false }
                locator.add(chunk)
                chunks.append(chunk)
                read += chunk.count
                rowsRead += chunk.count
            }
            return true
        }

        /// The ordering, once every chunk is read, when the rows and the checksum match the
        /// header and nothing follows the last chunk; nil otherwise.
        package func finish() -> OrderedKeys? {
            guard isComplete, rowsRead == header.rowCount,
                checksum.value == header.payloadChecksum, (try? handle.read(upToCount: 1))?.isEmpty ?? true
            else { return nil }
            return OrderedKeys(sortedChunks: chunks, locator: locator)
        }

        private static func read(_ count: Int, from handle: FileHandle) -> Data? {
            guard count >= 0, let data = try? handle.read(upToCount: count), data.count == count else { return nil }
            return data
        }

        /// The next chunk: its counts, then its row ids, key ends and key bytes read straight
        /// into its arrays (one copy from the file); nil when the file ends early or the key ends
        /// are out of order or bounds.
        private mutating func readChunk() -> OrderedKeys.Chunk? {
            guard let counts = Self.read(12, from: handle) else { return nil }
            let (count, byteCount, prefixCount) = counts.withUnsafeBytes {
                (
                    Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))),
                    Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self))),
                    Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
                )
            }
            let descriptor = handle.fileDescriptor
            guard count > 0, count <= OrderedKeys.maximumChunkCount, byteCount < 1 << 30, prefixCount < 1 << 20,
                var rowIDs: [Int64] = Self.readArray(descriptor, count: count),
                var ends: [Int32] = Self.readArray(descriptor, count: count),
                let prefix: [UInt8] = Self.readArray(descriptor, count: prefixCount),
                let bytes: [UInt8] = Self.readArray(descriptor, count: byteCount)
            else { return nil }
            // The same parts as the writer adds, so that words align the same way.
            counts.withUnsafeBytes { checksum.add($0) }
            rowIDs.withUnsafeBytes { checksum.add($0) }
            ends.withUnsafeBytes { checksum.add($0) }
            prefix.withUnsafeBytes { checksum.add($0) }
            bytes.withUnsafeBytes { checksum.add($0) }
            // In place: on a little-endian machine these loops change nothing and cost little.
            rowIDs.withUnsafeMutableBufferPointer { ids in
                for index in ids.indices { ids[index] = Int64(littleEndian: ids[index]) }
            }
            // Non-decreasing: a one-row chunk's whole key can be its prefix, leaving 0 bytes.
            var previous: Int32 = 0
            let ordered = ends.withUnsafeMutableBufferPointer { ends in
                for index in ends.indices {
                    let end = Int32(littleEndian: ends[index])
                    guard end >= previous else { return false }
                    ends[index] = end
                    previous = end
                }
                return true
            }
            guard ordered, Int(previous) == byteCount else { return nil }
            var chunk = OrderedKeys.Chunk(id: UInt32(chunks.count))
            chunk.rowIDs = rowIDs
            chunk.ends = ends
            chunk.prefix = prefix
            chunk.bytes = bytes
            return chunk
        }

        private static func readArray<Element>(_ descriptor: Int32, count: Int) -> [Element]? {
            var complete = true
            let array = [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
                let raw = UnsafeMutableRawBufferPointer(buffer)
                var done = 0
                while done < raw.count {
                    let got = Foundation.read(descriptor, raw.baseAddress! + done, raw.count - done)
                    if got < 0 && errno == EINTR { continue }
                    guard got > 0 else { break }
                    done += got
                }
                complete = done == raw.count
                // Elements are plain integers: any bytes are valid values, even on a short read.
                if !complete { raw.initializeMemory(as: UInt8.self, repeating: 0) }
                initialized = count
            }
            return complete ? array : nil
        }
    }
}
