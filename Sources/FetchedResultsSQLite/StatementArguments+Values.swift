import GRDB

extension StatementArguments {
    /// Arguments from values the controller already holds as database values or row ids.
    ///
    /// GRDB's initialiser for a sequence of `DatabaseValueConvertible` maps its elements with a
    /// key path, and generic code builds that key path anew at every call, which a one-row
    /// commit makes several of. These go through the existential initialiser, which maps with a
    /// closure.
    init(values: some Sequence<DatabaseValue>) {
        self.init(values.map { $0 as (any DatabaseValueConvertible)? })
    }

    /// Arguments from row ids; see ``init(values:)``.
    init(rowIDs: some Sequence<Int64>) {
        self.init(rowIDs.map { $0 as (any DatabaseValueConvertible)? })
    }
}
