import Testing
@testable import WorldCupKit

@Suite struct ImportProgressLineTests {
    @Test func barShareRateAndTimeLeft() {
        #expect(ImportProgressLine.text(label: "Importing f.json", done: 250_000, total: 1_000_000, elapsedSeconds: 2, barWidth: 8)
            == "Importing f.json [██░░░░░░] 25%  250,000 of 1,000,000 teams  ·  125,000/s  ·  6.0 s left")
        #expect(ImportProgressLine.text(label: "L", done: 10_000, total: 1_000_000, elapsedSeconds: 1, barWidth: 4)
            == "L [░░░░] 1%  10,000 of 1,000,000 teams  ·  10,000/s  ·  1 min 39 s left")
    }

    @Test func noRateInTheFirstMomentsAndTheTotalTimeAtTheEnd() {
        #expect(ImportProgressLine.text(label: "L", done: 0, total: 50_000, elapsedSeconds: 0, barWidth: 4)
            == "L [░░░░] 0%  0 of 50,000 teams")
        #expect(ImportProgressLine.text(label: "L", done: 50_000, total: 50_000, elapsedSeconds: 12.4, barWidth: 4)
            == "L [████] 100%  50,000 of 50,000 teams  ·  done in 12 s")
    }
}
