/// Where the rows after a given row start in a request's order, as conditions a store turns into
/// SQL: the rows a progressive fetch reads next.
///
/// The order is the stores' own: each sort key ascending with NULL first, or descending with NULL
/// last, then the row id. The rows after a boundary row are, in order: those equal to it on every
/// sort value with a greater row id; then those equal on all but the last sort value and after it
/// on that one; and so on up to the first. Each part is equal values on some leading keys and one
/// range on the next, which an index on the sort keys answers from where the part starts, not
/// from the index's start — unlike one condition joined by `OR`, or an `OFFSET`.
package enum KeysetPlan {
    /// One condition on one sort key, against the boundary row's value of it.
    package enum Condition: Equatable, Sendable {
        /// Equal to the boundary's value (which is not NULL).
        case equal(key: Int)
        case isNull(key: Int)
        case isNotNull(key: Int)
        /// Greater than the boundary's value (which is not NULL).
        case greater(key: Int)
        /// Less than the boundary's value (which is not NULL).
        case less(key: Int)
        /// A row id greater than the boundary's.
        case rowIDGreater
    }

    /// The parts, in order; each is conditions that all hold.
    ///
    /// - Parameters:
    ///   - ascending: for each sort key, whether it ascends.
    ///   - boundaryIsNull: for each sort key, whether the boundary row's value is NULL.
    package static func parts(ascending: [Bool], boundaryIsNull: [Bool]) -> [[Condition]] {
        precondition(ascending.count == boundaryIsNull.count, "one NULL flag per sort key")
        var parts: [[Condition]] = []
        for level in stride(from: ascending.count, through: 0, by: -1) {
            let equals = (0..<level).map { boundaryIsNull[$0] ? Condition.isNull(key: $0) : .equal(key: $0) }
            let ranges: [Condition]
            if level == ascending.count {
                ranges = [.rowIDGreater]
            } else {
                switch (ascending[level], boundaryIsNull[level]) {
                case (true, true): ranges = [.isNotNull(key: level)]
                case (true, false): ranges = [.greater(key: level)]
                case (false, true): ranges = []  // NULL is last when descending: nothing after it
                case (false, false): ranges = [.less(key: level), .isNull(key: level)]
                }
            }
            parts += ranges.map { equals + [$0] }
        }
        return parts
    }
}
