/// A table name as this library compares it: lowercased by Swift, also beyond ASCII (where SQL's
/// `lower()` stops). Without making a new string when the name is plain lowercase ASCII, as
/// SQLite nearly always reports this library's tables: this runs for every statement and every
/// changed row of a write while a controller follows, and for every history row a look reads.
func lowercasedTableName(_ name: String) -> String {
    name.utf8.allSatisfy({ $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
        ? name : name.lowercased()
}
