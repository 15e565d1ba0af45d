import FetchedResults
import TestSupport
import Testing

/// `KeysetPlan` against the order itself, on random rows of small values and NULLs: a row is
/// after the boundary exactly when it meets one part, and every row of a part comes before every
/// row of the next.
@Suite struct KeysetPlanTests {
    typealias Row = (values: [Int?], id: Int)

    /// The stores' order: ascending keys put NULL first, descending keys put it last; then the id.
    static func precedes(_ a: Row, _ b: Row, ascending: [Bool]) -> Bool {
        for (key, up) in ascending.enumerated() where a.values[key] != b.values[key] {
            switch (a.values[key], b.values[key]) {
            case (nil, _): return up
            case (_, nil): return !up
            case let (x?, y?): return up ? x < y : x > y
            }
        }
        return a.id < b.id
    }

    static func meets(_ row: Row, _ condition: KeysetPlan.Condition, boundary: Row) -> Bool {
        switch condition {
        case let .equal(key): return row.values[key] != nil && row.values[key] == boundary.values[key]
        case let .isNull(key): return row.values[key] == nil
        case let .isNotNull(key): return row.values[key] != nil
        case let .greater(key): return row.values[key].map { $0 > boundary.values[key]! } ?? false
        case let .less(key): return row.values[key].map { $0 < boundary.values[key]! } ?? false
        case .rowIDGreater: return row.id > boundary.id
        }
    }

    @Test func thePartsAreTheRowsAfterTheBoundaryInOrder() {
        let seed: UInt64 = 20_261_123
        print("KeysetPlanTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        for _ in 0..<300 {
            let keyCount = Int.random(in: 1...3, using: &random)
            let ascending = (0..<keyCount).map { _ in Bool.random(using: &random) }
            let rows: [Row] = (0..<40).map { id in
                (
                    (0..<keyCount).map { _ in
                        Int.random(in: 0..<4, using: &random) == 0 ? nil : Int.random(in: 0..<3, using: &random)
                    }, id
                )
            }
            let sorted = rows.sorted { Self.precedes($0, $1, ascending: ascending) }
            let boundary = sorted[Int.random(in: 0..<sorted.count, using: &random)]
            let parts = KeysetPlan.parts(ascending: ascending, boundaryIsNull: boundary.values.map { $0 == nil })
            var lastPart = -1
            for row in sorted {
                let met = parts.indices.filter { part in
                    parts[part].allSatisfy { Self.meets(row, $0, boundary: boundary) }
                }
                let after = Self.precedes(boundary, row, ascending: ascending)
                #expect(
                    met.count == (after ? 1 : 0),
                    "row \(row) against boundary \(boundary), ascending \(ascending): parts \(met)")
                if let part = met.first {
                    #expect(part >= lastPart, "the parts follow the order")
                    lastPart = part
                }
            }
        }
    }
}
