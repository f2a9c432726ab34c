import EventModel
import KVCConfig
import Testing
import Tracker
import ViewIdentity

@Suite struct RuleDiagnosisTests {
    static func rule(_ id: String, _ event: ViewEvent, _ path: String) throws -> KVCRule {
        KVCRule(
            id: id, appKey: "shop", appVersion: .any, viewEvent: event, viewPath: try PathPattern(path),
            keyPath: nil, keyName: nil)
    }

    static let path = ViewPath(elements: [
        .init(name: "Home", index: .position(0)), .init(name: "UIView", index: .position(0)),
        .init(name: "UIButton", index: .position(1)),
    ])

    @Test func aMatchedInteractionListsTheRulesAndTheValuesRead() throws {
        let r = try Self.rule("fav", .buttonClick, "Home-UIView-UIButton&0-0-1")
        let d = RuleDiagnosis(
            rules: [r], viewEvent: .buttonClick, path: Self.path,
            matched: [(r.id, JSONValue.string("p-1").jsonText)])
        #expect(d.nearest == nil)
        #expect(
            d.line(kind: "click", path: Self.path, code: "Home#onFav:")
                == "autotrack debug: click path=Home-UIView-UIButton&0-0-1 code=Home#onFav: matched: fav=\"p-1\"")
    }

    @Test func aDifferingNameIsTheFirstElementWhereTheNearestRuleDiffers() throws {
        // Both differ, "near" in its third element, "far" in its first: "near" is nearest.
        let rules = [
            try Self.rule("far", .buttonClick, "Detail-UIView-UIButton&0-0-1"),
            try Self.rule("near", .buttonClick, "Home-UIView-UISwitch&0-0-1"),
            try Self.rule("other-event", .valueChanged, "Home-UIView-UIButton&0-0-1"),
        ]
        let d = RuleDiagnosis(rules: rules, viewEvent: .buttonClick, path: Self.path, matched: [])
        #expect(d.nearest == RuleDiagnosis.Nearest(ruleID: "near", element: 2, expected: "UISwitch[1]", actual: "UIButton[1]"))
        #expect(
            d.line(kind: "click", path: Self.path, code: "c")
                == "autotrack debug: click path=Home-UIView-UIButton&0-0-1 code=c no rule matched; nearest near differs at element 2: expected UISwitch[1], got UIButton[1]")
    }

    @Test func aDifferingIndexCountsAsADifferenceAndTiesGoToPlanOrder() throws {
        let rules = [
            try Self.rule("first", .buttonClick, "Home-UIView-UIButton&0-0-2"),
            try Self.rule("second", .buttonClick, "Home-UIView-UIButton&0-0-3"),
        ]
        let d = RuleDiagnosis(rules: rules, viewEvent: .buttonClick, path: Self.path, matched: [])
        #expect(d.nearest == RuleDiagnosis.Nearest(ruleID: "first", element: 2, expected: "UIButton[2]", actual: "UIButton[1]"))
    }

    @Test func aShorterRulePathDiffersWhereItEnds() throws {
        let d = RuleDiagnosis(
            rules: [try Self.rule("short", .buttonClick, "Home-UIView&0-0")], viewEvent: .buttonClick, path: Self.path, matched: [])
        #expect(d.nearest == RuleDiagnosis.Nearest(ruleID: "short", element: 2, expected: "(end)", actual: "UIButton[1]"))
    }

    @Test func withNoRuleOfThatViewEventThereIsNoNearestRule() throws {
        let d = RuleDiagnosis(
            rules: [try Self.rule("toggle", .valueChanged, "Home-UIView-UIButton&0-0-1")], viewEvent: .buttonClick,
            path: Self.path, matched: [])
        #expect(d.nearest == nil)
        #expect(d.line(kind: "click", path: Self.path, code: "c").hasSuffix("no rule matched; no rule has this view event"))
    }
}
