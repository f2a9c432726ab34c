import EventModel
import Foundation
import KVCConfig
import PathDrift
import Testing
import TestSupport
import ViewIdentity

@Suite struct RuleFixTests {
    @Test func onlySuggestedPathsChangeAndTheResultLoads() throws {
        let dir = Fixtures.temporaryDirectory("rule-fix")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("rules.json").path
        try DriftTrees.rules.write(toFile: file, atomically: true, encoding: .utf8)
        let plan = try TrackingPlan.load(files: [file])
        let text = try RuleFix.document(plan, suggestions: ["detail-cart": "DetailViewController-UIView-UIStackView-UIButton&0-0-0-2"])
        let fixed = try ConfigLoader.parse(text: text, file: "fixed.json")
        #expect(fixed.rules.count == plan.rules.count)
        for (old, new) in zip(plan.rules, fixed.rules) {
            var expected = old
            if old.id == "detail-cart" { expected.viewPath = try PathPattern("DetailViewController-UIView-UIStackView-UIButton&0-0-0-2") }
            expected.location = new.location
            #expect(new == expected)
        }
        // Each rule keeps its members in the order its file wrote them (content last in detail-cart).
        let line = try #require(text.split(separator: "\n").first { $0.contains("\"detail-cart\"") })
        #expect(line.hasSuffix(#""keyName":"sku","content":"Add to cart"},"#))
    }
}
