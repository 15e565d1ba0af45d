/// Column names as SQL compares them: ASCII letters in either case name the same column.
enum ColumnName {
    /// Whether `names` holds `name`, ignoring ASCII case.
    static func contains(_ name: String, in names: Set<String>) -> Bool {
        if names.contains(name) { return true }
        let length = name.utf8.count
        return names.contains { $0.utf8.count == length && equal($0, name) }
    }

    private static func equal(_ left: String, _ right: String) -> Bool {
        left.utf8.elementsEqual(right.utf8) { lowercased($0) == lowercased($1) }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
