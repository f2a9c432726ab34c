import KVCConfig
@testable import Matching
import Testing
import ViewIdentity

/// The index must keep the rules an event meets small however many rules the plan holds.
@Suite struct PruningTests {
    @Test func anEventMeetsOnlyTheRulesThatCouldMatchIt() throws {
        var rules: [KVCRule] = []
        // 2,000 rules on 200 other screens.
        for n in 0..<2000 {
            rules.append(try rule("other\(n)", path: "Screen\(n % 200)-UIView-UIButton&0-0-\(n % 7)"))
        }
        // 1,200 rules on one list: exact rows of three sections, `s:*` per section, and `*`.
        let cell = "List-UITableView-ProductCell-UIButton"
        for row in 0..<400 {
            for s in 0..<3 { rules.append(try rule("row\(s):\(row)", path: "\(cell)&0-0-\(s):\(row)-0")) }
        }
        rules.append(try rule("section1", path: "\(cell)&0-0-1:*-0"))
        rules.append(try rule("anyCell", path: "\(cell)&0-0-*-0"))
        rules.append(try rule("buyOnly", path: "\(cell)&0-0-*-0", content: "Buy"))
        let m = PlanMatcher(plan: TrackingPlan(rules: rules))

        let q = try query("\(cell)&0-0-1:17-0", title: "Buy")
        #expect(m.matchingRuleIndexes(q).map { rules[$0].id } == ["row1:17", "section1", "anyCell", "buyOnly"])
        // The exact row, the section's `s:*` and the `*` rules: nothing of the other 3,200.
        #expect(m.candidateCount(q) <= 8)
        #expect(m.candidateCount(try query("Screen3-UIView-UIButton&0-0-2")) <= 12)
        // Names no rule has: no candidate at all.
        #expect(m.candidateCount(try query("Screen3-UIView-UILabel&0-0-2")) == 0)
        #expect(m.candidateCount(try query("\(cell)&0-0-1:17-0", event: .viewTap)) == 0)
    }
}
