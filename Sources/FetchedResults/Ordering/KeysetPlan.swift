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

    /// How a store writes one condition in its SQL, with the boundary row's value of the key
    /// as a parameter it appends.
    package protocol Dialect {
        /// The key's value compared with the boundary's (`=`, `<`, `>`), as the order compares.
        mutating func compare(key: Int, _ operator: String) -> String
        /// The key's value is NULL (`null`) or is not.
        mutating func key(_ key: Int, isNull null: Bool) -> String
        /// The row id is greater than the boundary's.
        mutating func rowIDGreater() -> String
    }

    /// The parts as SQL conditions, each one in parentheses and written by its own dialect from
    /// `makeDialect`, called once per part in order: each dialect then holds its part's
    /// parameters (each part its own statement), or the dialects share one statement's.
    package static func sql<D: Dialect>(
        ascending: [Bool], boundaryIsNull: [Bool], makeDialect: () -> D
    ) -> [(sql: String, dialect: D)] {
        parts(ascending: ascending, boundaryIsNull: boundaryIsNull).map { conditions in
            var dialect = makeDialect()
            let terms = conditions.map { condition -> String in
                switch condition {
                case let .equal(key): dialect.compare(key: key, "=")
                case let .greater(key): dialect.compare(key: key, ">")
                case let .less(key): dialect.compare(key: key, "<")
                case let .isNull(key): dialect.key(key, isNull: true)
                case let .isNotNull(key): dialect.key(key, isNull: false)
                case .rowIDGreater: dialect.rowIDGreater()
                }
            }
            return ("(" + terms.joined(separator: " AND ") + ")", dialect)
        }
    }
}
