import Foundation
import Testing

@testable import WorldCupModel

/// The audit log's line, as the README promises it: tab-separated, the time in UTC.
@Suite struct AuditLogLineTests {
    @Test func theTimeIsUTCAndSaysSo() {
        let change = CommittedChange(.add, teamID: 33, teamName: "Wenderland")
        let line = AuditLog.line(change, at: Date(timeIntervalSince1970: 1_700_000_000.25))
        #expect(line == "2023-11-14T22:13:20.250Z\tadd\t-\t33\tWenderland\n")
    }
}
