import EventModel
import KVCConfig
import Testing
import ViewIdentity

/// A plan's `ignore` patterns (docs/privacy.md): read from rules documents, merged once, covering
/// the view they name and its subtree, and refused in a published rule set.
@Suite struct IgnorePatternTests {
    @Test func patternsLoadWithTheirPlacesMergeOnceAndCoverAViewAndWhatIsInsideIt() throws {
        let a = try ConfigLoader.parse(text: #"{"ignore": ["Home-UIView-Cell&0-0-0:*", "Detail&0"]}"#, file: "a.json")
        let b = try ConfigLoader.parse(text: #"{"rules": [], "ignore": ["Detail&0"]}"#, file: "b.json")
        let plan = try a.merging(b)
        #expect(plan.ignore.map(\.pattern.text) == ["Home-UIView-Cell&0-0-0:*", "Detail&0"])
        #expect(plan.ignore.map(\.location) == [
            ConfigLocation(file: "a.json", keyPath: "ignore[0]"), ConfigLocation(file: "a.json", keyPath: "ignore[1]"),
        ])
        func ignores(_ path: String) throws -> Bool { plan.ignores(try ViewPath(canonical: path)) }
        #expect(try ignores("Home-UIView-Cell&0-0-0:3"))
        #expect(try ignores("Home-UIView-Cell-UIButton&0-0-0:3-1"))
        #expect(try ignores("Detail&0"))
        #expect(try ignores("Detail-UIView-UIButton&0-0-2"))
        #expect(try !ignores("Home-UIView&0-0"))
        #expect(try !ignores("Home-UIView-Other&0-0-0"))
        #expect(try !ignores("Detail&1"))
        #expect(try !ignores("DetailPage&0"))
    }

    @Test func aPublishedRuleSetCannotCarryIgnorePatterns() {
        let json = try! JSONValue.parse(#"{"rules": [], "ignore": ["A&0"]}"#)
        #expect {
            _ = try ConfigLoader.rules(json: json, file: "PUBLISH")
        } throws: { error in
            let text = "\(error)"
            return text.contains("PUBLISH: ignore: ") && text.contains("the app's configuration files")
        }
    }
}
