/// Line numbers of one batch update, kept as sorted ranges: a whole inserted or deleted section
/// is one range however many rows it has, so a batch that adds a section of a million rows costs
/// no million-element array.
///
/// Invariant: `ranges` are non-empty, sorted and neither overlap nor touch; `countsBefore[i]` is
/// the number of lines in the ranges before range i.
struct LineSet {
    private var ranges: [Range<Int>] = []
    private var countsBefore: [Int] = []

    init(lines: [Int], sections: [Range<Int>] = []) {
        let all = (Self.runs(of: lines) + sections.filter { !$0.isEmpty }).sorted { $0.lowerBound < $1.lowerBound }
        for range in all {
            if let last = ranges.last, range.lowerBound <= last.upperBound {
                ranges[ranges.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                ranges.append(range)
            }
        }
        var total = 0
        for range in ranges {
            countsBefore.append(total)
            total += range.count
        }
    }

    /// The lines as ranges of consecutive lines, in order: a load step's thousands of rows at
    /// the end of a section make one range, and integers sort faster than a range per line.
    private static func runs(of lines: [Int]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        for line in lines.sorted() {
            if let last = runs.last, line <= last.upperBound {
                runs[runs.count - 1] = last.lowerBound..<max(last.upperBound, line + 1)
            } else {
                runs.append(line..<(line + 1))
            }
        }
        return runs
    }

    /// How many lines are below `line`.
    func count(below line: Int) -> Int {
        // The first range that does not end at or below `line`.
        var (low, high) = (0, ranges.count)
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound <= line { low = middle + 1 } else { high = middle }
        }
        guard low < ranges.count else { return countsBefore.last.map { $0 + ranges[ranges.count - 1].count } ?? 0 }
        return countsBefore[low] + max(0, line - ranges[low].lowerBound)
    }

    func contains(_ line: Int) -> Bool {
        count(below: line + 1) > count(below: line)
    }
}
