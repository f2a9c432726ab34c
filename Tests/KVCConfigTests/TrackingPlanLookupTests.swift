import Testing

@testable import KVCConfig

@Suite struct TrackingPlanLookupTests {
    @Test func lookups() throws {
        let rules = #"""
            {"rules":[
              {"id":"old","appKey":"shop","appVersion":"<1.2","viewEvent":"ButtonClick","viewPath":"A&0","keyPath":"x","keyName":"x"},
              {"id":"new","appKey":"shop","appVersion":">=1.2.0 <2.0.0","viewEvent":"ButtonClick","viewPath":"A&0","keyPath":"x","keyName":"x"},
              {"id":"any","appKey":"shop","appVersion":"*","viewEvent":"ButtonClick","viewPath":"A&0","keyPath":"x","keyName":"x"},
              {"id":"other","appKey":"news","appVersion":"*","viewEvent":"ButtonClick","viewPath":"A&0","keyPath":"x","keyName":"x"}
            ]}
            """#
        let plan = try ConfigLoader.parse(text: SpecDocuments.eventTable, file: "e").merging(try ConfigLoader.parse(text: rules, file: "r"))
        #expect(plan.rules(appKey: "shop", version: try #require(AppVersion("1.2"))).map(\.id) == ["new", "any"])
        #expect(plan.rules(appKey: "shop", version: try #require(AppVersion("1.1.9"))).map(\.id) == ["old", "any"])
        #expect(plan.rules(appKey: "news", version: try #require(AppVersion("9"))).map(\.id) == ["other"])
        #expect(plan.controlEventID(className: "HomeViewController", action: "onFavBtnPressed:") == "CTRL_EVENT_HOME_FAV")
        #expect(plan.controlEventID(className: "HomeViewController", action: "nope:") == nil)
        #expect(plan.pageEventID(className: "HomeViewController", enter: true) == "EVENT_HOME_ENTER_PAGE")
        #expect(plan.pageEventID(className: "HomeViewController", enter: false) == "EVENT_HOME_LEAVE_PAGE")
        #expect(plan.pageEventID(className: "Other", enter: true) == nil)
    }
}
