import Foundation

/// The persistent cache of a controller's ordering: every row id with its encoded sort key,
/// chunk by chunk, behind a header that says what it is valid for.
///
/// A cache is used only when its header matches the request's fingerprint, the store's schema
/// and the store's identity, and when the store's change history still holds every
/// change since the cache's feed position (those changes are then applied on top). Anything else —
/// another request, another store, an old schema, pruned history, a truncated or damaged file
/// (the payload carries a checksum) — makes ``read(from:expecting:)`` (or a ``Reader``, which
/// reads a file a part at a time) return nil, and the controller fetches from the store
/// instead. Files are written whole to a temporary name and renamed, so a reader never sees
/// half a file. They are not synced to disk: a cache lost or cut
/// short by a power failure is detected and rebuilt, and syncing would stall the app.
///
/// Layout: the magic `FRCACHE` and a format byte; the header's length (4 bytes, little-endian)
/// and the header as JSON; then per chunk its row count, key bytes length and shared prefix
/// length (4 bytes each), the row ids (8 bytes each), the key ends (4 bytes each), the shared
/// prefix and the key bytes (see ``OrderedKeys/Chunk``).
package struct ResultsCacheFile {
    package static let magic = Array("FRCACHE\u{7}".utf8)
    package static let fileExtension = "frcache"

    /// What a cache must match to be used.
    package typealias Validity = CacheValidity

    package struct Header: Codable {
        package var validity: Validity
        /// Where in the store's change history the ordering was exact, in the store's own terms
        /// (SQLite: a history sequence number; PostgreSQL: a snapshot).
        package var feedPosition: String
        package var rowCount: Int
        package var chunkCount: Int
        package var payloadChecksum: UInt64
        /// Section names by identity (hexadecimal), so a cached launch need not read them.
        package var sectionNames: [String: String]
        /// The lowest and highest row ids, so that a reader can lay out its row locator before
        /// the first chunk; nil without rows.
        package var rowIDRange: ClosedRange<Int64>?
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
        _ keys: OrderedKeys, validity: Validity, feedPosition: String, sectionNames: [[UInt8]: String], to url: URL
    ) throws {
        var checksum = Checksum()
        for chunk in keys.chunks { forEachPart(of: chunk) { checksum.add($0) } }
        let header = Header(
            validity: validity, feedPosition: feedPosition, rowCount: keys.count, chunkCount: keys.chunks.count,
            payloadChecksum: checksum.value,
            sectionNames: Dictionary(uniqueKeysWithValues: sectionNames.map { (hex($0.key), $0.value) }),
            rowIDRange: RowLocator.idRange(of: keys.chunks))
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
    /// Closures, not key paths, in the maps: a key path used as a function is projected for
    /// each element, a cost paid for every row a save writes.
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
