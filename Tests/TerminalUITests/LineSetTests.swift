import TestSupport
import Testing

@testable import TerminalUI

/// `LineSet` (a batch update's lines as ranges) against a plain sorted array of the same lines.
@Suite struct LineSetTests {
    @Test func countsAndMembershipAgreeWithASortedArray() {
        let seed: UInt64 = 20_261_123
        print("LineSetTests seed \(seed)")
        var random = SplitMix64(seed: seed)
        for _ in 0..<300 {
            let lines = (0..<Int.random(in: 0...12, using: &random)).map { _ in Int.random(in: 0..<200, using: &random)
            }
            let sections = (0..<Int.random(in: 0...3, using: &random)).map { _ -> Range<Int> in
                let start = Int.random(in: 0..<200, using: &random)
                return start..<(start + Int.random(in: 0...40, using: &random))
            }
            let set = LineSet(lines: lines, sections: sections)
            let oracle = Set(lines + sections.flatMap { Array($0) }).sorted()
            for line in -1...260 {
                #expect(
                    set.count(below: line) == oracle.filter { $0 < line }.count, "below \(line): \(lines) \(sections)")
                #expect(set.contains(line) == oracle.contains(line), "contains \(line): \(lines) \(sections)")
            }
        }
    }
}
