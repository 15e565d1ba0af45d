import Testing

@testable import WorldCupModel
@testable import WorldCupScoreboard
@testable import WorldCupStores

@Suite struct ImportProgressLineTests {
    @Test func barShareRateAndTimeLeft() {
        #expect(
            ImportProgressLine.text(
                label: "Importing f.json", status: ImportStatus(teams: 250_000, share: 0.25),
                elapsedSeconds: 2, barWidth: 8)
                == "Importing f.json [██░░░░░░] 25%  250,000 teams  ·  125,000/s  ·  6.0 s left")
        #expect(
            ImportProgressLine.text(
                label: "L", status: ImportStatus(teams: 10_000, share: 0.01), elapsedSeconds: 1, barWidth: 4)
                == "L [░░░░] 1%  10,000 teams  ·  10,000/s  ·  1 min 39 s left")
    }

    @Test func timeLeftFollowsTheShareNotTheTeams() {
        // Index building after the rows: no more teams, but the share still grows.
        #expect(
            ImportProgressLine.text(
                label: "L", status: ImportStatus(teams: 1_000_000, share: 0.75), elapsedSeconds: 8, barWidth: 4)
                == "L [███░] 75%  1,000,000 teams  ·  125,000/s  ·  2.6 s left")
    }

    @Test func noRateInTheFirstMomentsAndTheTotalTimeAtTheEnd() {
        #expect(
            ImportProgressLine.text(
                label: "L", status: ImportStatus(teams: 0, share: 0), elapsedSeconds: 0, barWidth: 4)
                == "L [░░░░] 0%  0 teams")
        #expect(
            ImportProgressLine.text(
                label: "L", status: ImportStatus(teams: 1, share: 1), elapsedSeconds: 12.4, barWidth: 4)
                == "L [████] 100%  1 team  ·  done in 12 s")
    }
}
