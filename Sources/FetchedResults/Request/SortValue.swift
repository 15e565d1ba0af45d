/// A row's value of one sort descriptor, for a store that makes sort keys from values (see
/// ``TableFetchRequest/sortKey(of:rowID:)``): this package's stores read keys straight from
/// their databases' results instead.
///
/// Values of different kinds order as SQLite orders its storage classes: NULL, then numbers
/// (integers and reals compared by value, exactly), then text, then bytes.
public enum SortValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The value as a section's name: its text, "" for NULL (bytes read as UTF-8).
    public var sectionName: String {
        switch self {
        case .null: ""
        case let .integer(number): String(number)
        case let .real(number): String(number)
        case let .text(text): text
        case let .blob(bytes): String(decoding: bytes, as: UTF8.self)
        }
    }
}

extension TableFetchRequest {
    /// The key the controller orders a row by: the row's values of the sort descriptors, in
    /// their order, each folded and inverted as its descriptor says, then its id. Keys compare
    /// as bytes (shorter first), as `[UInt8].lexicographicallyPrecedes` does, in exactly the
    /// order of the descriptors with the id as the last tie-break.
    ///
    /// - Parameters:
    ///   - values: one value per sort descriptor.
    ///   - rowID: the row's id.
    public func sortKey(of values: [SortValue], rowID: Int64) -> [UInt8] {
        precondition(values.count == sortDescriptors.count, "one sort value per sort descriptor")
        var key: [UInt8] = []
        for (value, descriptor) in zip(values, sortDescriptors) {
            let start = key.count
            switch value {
            case .null: SortKey.appendNull(to: &key)
            case let .integer(number): SortKey.appendNumber(integer: number, to: &key)
            case let .real(number): SortKey.appendNumber(real: number, to: &key)
            case let .text(text):
                var text = text
                text.withUTF8 { SortKey.appendText($0, foldingCase: descriptor.foldsCase, to: &key) }
            case let .blob(bytes): bytes.withUnsafeBufferPointer { SortKey.appendBlob($0, to: &key) }
            }
            if !descriptor.ascending { SortKey.invert(&key, from: start) }
        }
        SortKey.appendRowID(rowID, to: &key)
        return key
    }
}
