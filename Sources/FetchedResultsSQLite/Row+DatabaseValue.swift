import GRDB

extension Row {
    /// The value at `index` as it is stored, read through the row's collection of
    /// (column, value) pairs: `row[index] as DatabaseValue` decodes it through the generic
    /// `DatabaseValueConvertible` path, which looks up the metadata of `Optional<DatabaseValue>`
    /// for every value, and a look keys every row a commit touched.
    func storedValue(at index: Int) -> DatabaseValue {
        self[self.index(startIndex, offsetBy: index)].1
    }
}
