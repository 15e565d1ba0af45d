import Foundation

/// The persistent cache of a controller's ordering: every row id with its encoded sort key,
/// chunk by chunk, behind a header that says what it is valid for.
///
/// A cache is used only when its header matches the request's fingerprint, the store's schema
/// and the store's identity, and when the store's change history still holds every
/// change since the cache's generation (those changes are then applied on top). Anything else —
/// another request, another store, an old schema, pruned history, a truncated or damaged file
/// (the payload carries a checksum) — makes ``read(from:expecting:)`` return nil, and the
/// controller fetches from the store instead. Files are written whole to a temporary name and
/// renamed, so a reader never sees half a file. They are not synced to disk: a cache lost or cut
/// short by a power failure is detected and rebuilt, and syncing would stall the app.
///
/// Layout: the magic `FRCACHE` and a format byte; the header's length (4 bytes, little-endian)
/// and the header as JSON; then per chunk its row count, key bytes length and shared prefix
/// length (4 bytes each), the row ids (8 bytes each), the key ends (4 bytes each), the shared
/// prefix and the key bytes (see ``OrderedKeys/Chunk``).
package struct ResultsCacheFile {
    package static let magic = Array("FRCACHE\u{5}".utf8)
    package static let fileExtension = "frcache"

    /// What a cache must match to be used.
    package typealias Validity = CacheValidity

    package struct Header: Codable {
        package var validity: Validity
        /// Where in the store's change history the ordering was exact, in the store's own terms
        /// (SQLite: a history sequence number; PostgreSQL: a snapshot).
        package var generation: String
        package var rowCount: Int
        package var chunkCount: Int
        package var payloadChecksum: UInt64
        /// Section names by identity (hexadecimal), so a cached launch need not read them.
        package var sectionNames: [String: String]
    }

    /// `$XDG_CACHE_HOME/FetchedResults`, or `~/.cache/FetchedResults`.
    package static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return base.appendingPathComponent("FetchedResults")
    }

    package static func url(name: String, in directory: URL) -> URL {
        let safe = String(name.map { $0 == "/" || $0 == "\0" ? "_" : $0 })
        return directory.appendingPathComponent(safe).appendingPathExtension(fileExtension)
    }

    // MARK: - Writing

    package static func write(
        _ keys: OrderedKeys, validity: Validity, generation: String, sectionNames: [[UInt8]: String], to url: URL
    ) throws {
        var checksum = Checksum()
        for chunk in keys.chunks { forEachPart(of: chunk) { checksum.add($0) } }
        let header = Header(
            validity: validity, generation: generation, rowCount: keys.count, chunkCount: keys.chunks.count,
            payloadChecksum: checksum.value,
            sectionNames: Dictionary(uniqueKeysWithValues: sectionNames.map { (hex($0.key), $0.value) }))
        let headerData = try JSONEncoder().encode(header)

        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = url.appendingPathExtension("tmp-\(getpid())")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            var start = Data(magic)
            withUnsafeBytes(of: UInt32(headerData.count).littleEndian) { start.append(contentsOf: $0) }
            start.append(headerData)
            try handle.write(contentsOf: start)
            for chunk in keys.chunks {
                var data = Data()
                forEachPart(of: chunk) { data.append(contentsOf: $0) }
                try handle.write(contentsOf: data)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        if rename(temporary.path, url.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
    }

    /// A chunk's bytes in file order: counts, row ids, key ends, key bytes.
    ///
    /// Closures, not key paths, in the maps: a key path used as a function was projected for
    /// each element, two thirds of the time of saving a million rows (300 → 100 ms).
    private static func forEachPart(of chunk: OrderedKeys.Chunk, _ body: (UnsafeRawBufferPointer) -> Void) {
        let counts = [UInt32(chunk.count), UInt32(chunk.bytes.count), UInt32(chunk.prefix.count)].map {
            $0.littleEndian
        }
        counts.withUnsafeBytes(body)
        chunk.rowIDs.map { $0.littleEndian }.withUnsafeBytes(body)
        chunk.ends.map { $0.littleEndian }.withUnsafeBytes(body)
        chunk.prefix.withUnsafeBytes(body)
        chunk.bytes.withUnsafeBytes(body)
    }

    // MARK: - Reading

    /// The cache at `url` when it exists, is whole and undamaged, and matches `validity`;
    /// nil otherwise.
    package static func read(from url: URL, expecting validity: Validity) -> (header: Header, keys: OrderedKeys)? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        func read(_ count: Int) -> Data? {
            guard count >= 0, let data = try? handle.read(upToCount: count), data.count == count else { return nil }
            return data
        }
        guard let start = read(magic.count + 4), Array(start.prefix(magic.count)) == magic else { return nil }
        let headerLength = Int(
            UInt32(littleEndian: start.suffix(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }))
        guard headerLength < 64 << 20, let headerData = read(headerLength),
            let header = try? JSONDecoder().decode(Header.self, from: headerData),
            header.validity == validity
        else { return nil }

        var checksum = Checksum()
        var chunks: [OrderedKeys.Chunk] = []
        chunks.reserveCapacity(header.chunkCount)
        var rows = 0
        let descriptor = handle.fileDescriptor
        for index in 0..<header.chunkCount {
            guard let counts = read(12) else { return nil }
            let (count, byteCount, prefixCount) = counts.withUnsafeBytes {
                (
                    Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))),
                    Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self))),
                    Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
                )
            }
            guard count > 0, count <= OrderedKeys.maximumChunkCount, byteCount < 1 << 30, prefixCount < 1 << 20,
                let chunk = readChunk(
                    descriptor, count: count, byteCount: byteCount, prefixCount: prefixCount, id: UInt32(index))
            else { return nil }
            // The same parts as the writer adds, so that words align the same way.
            counts.withUnsafeBytes { checksum.add($0) }
            chunk.rowIDs.withUnsafeBytes { checksum.add($0) }
            chunk.ends.withUnsafeBytes { checksum.add($0) }
            chunk.prefix.withUnsafeBytes { checksum.add($0) }
            chunk.bytes.withUnsafeBytes { checksum.add($0) }
            chunks.append(chunk)
            rows += count
        }
        guard rows == header.rowCount, checksum.value == header.payloadChecksum,
            (try? handle.read(upToCount: 1))?.isEmpty ?? true
        else { return nil }
        return (header, OrderedKeys(sortedChunks: chunks))
    }

    /// Reads one chunk's row ids, key ends and key bytes straight into its arrays (one copy from
    /// the file), or nil when the file ends early or the key ends are out of order or bounds.
    private static func readChunk(
        _ descriptor: Int32, count: Int, byteCount: Int, prefixCount: Int, id: UInt32
    ) -> OrderedKeys.Chunk? {
        var chunk = OrderedKeys.Chunk(id: id)
        guard let rowIDs: [Int64] = readArray(descriptor, count: count),
            let ends: [Int32] = readArray(descriptor, count: count),
            let prefix: [UInt8] = readArray(descriptor, count: prefixCount),
            let bytes: [UInt8] = readArray(descriptor, count: byteCount)
        else { return nil }
        chunk.rowIDs = rowIDs.map { Int64(littleEndian: $0) }
        chunk.ends = ends.map { Int32(littleEndian: $0) }
        chunk.prefix = prefix
        chunk.bytes = bytes
        // Non-decreasing: a one-row chunk's whole key can be its prefix, leaving 0 bytes.
        var previous: Int32 = 0
        for end in chunk.ends {
            guard end >= previous else { return nil }
            previous = end
        }
        return Int(previous) == byteCount ? chunk : nil
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

    /// Lower-case hexadecimal, for section identities in the JSON header.
    package static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    package static func bytes(fromHex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        return stride(from: 0, to: digits.count, by: 2).compactMap {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)
        }
    }

    /// Removes the cache named `name`, or every cache in `directory` when `name` is nil.
    package static func delete(name: String?, in directory: URL) {
        if let name {
            try? FileManager.default.removeItem(at: url(name: name, in: directory))
            return
        }
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        for file in files where file.pathExtension == fileExtension { try? FileManager.default.removeItem(at: file) }
    }
}

/// A fast 64-bit checksum (word-wise multiply-xor in four independent lanes, so the processor
/// can overlap them): detects damaged or mixed-up cache files, not tampering. Every step is
/// invertible, so changing any one word always changes the result.
package struct Checksum {
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}
    private static let prime: UInt64 = 0x0000_0100_0000_01b3

    package mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var lanes = (value, value ^ 0x9E37_79B9_7F4A_7C15, value ^ 0xBF58_476D_1CE4_E5B9, value ^ 0x94D0_49BB_1331_11EB)
        let blocks = bytes.count / 32
        for block in 0..<blocks {
            let offset = block * 32
            lanes.0 = Self.mix(lanes.0, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            lanes.1 = Self.mix(lanes.1, bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            lanes.2 = Self.mix(lanes.2, bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
            lanes.3 = Self.mix(lanes.3, bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
        }
        var hash = lanes.0 ^ Self.rotate(lanes.1, 17) ^ Self.rotate(lanes.2, 31) ^ Self.rotate(lanes.3, 47)
        for index in (blocks * 32)..<bytes.count {
            hash = (hash ^ UInt64(bytes[index])) &* Self.prime
        }
        value = Self.mix(hash, UInt64(bytes.count))
    }

    private static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let multiplied = (hash ^ word) &* prime
        return multiplied ^ (multiplied >> 29)
    }

    private static func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }
}
