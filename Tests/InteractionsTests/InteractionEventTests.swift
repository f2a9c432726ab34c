import EventModel
import Interactions
import KVCConfig
import Testing
import ViewIdentity

@Suite struct InteractionEventTests {
    @Test func conversionFollowsTheWireTable() throws {
        let node = TreeNode(typeName: "Shop.HomeViewController", role: .controller)
        let view = TreeNode(typeName: "UIView")
        let slider = TreeNode(typeName: "UISlider", title: "Volume")
        node.append(view)
        view.append(slider)
        let i = Interaction(
            kind: .valueChanged, node: slider,
            eventCode: EventCode(controller: "HomeViewController", target: "HomeViewController", action: "onVolume:"),
            controlEvents: .valueChanged, title: "Volume", value: ControlValue(value: 0.75), indexPath: CellIndexPath(section: 1, row: 4),
            page: "HomeViewController", timestamp: 42)
        let e = i.trackEvent(id: "a", session: "s", extraProps: JSONObject([("productId", "p-1"), ("title", "overridden")]))
        #expect(e.type == .valueChanged)
        #expect(e.name == "HomeViewController#HomeViewController#onVolume:")
        #expect(e.path == "HomeViewController-UIView-UISlider&0-0-0")
        #expect(e.viewId == ViewID(canonical: "HomeViewController-UIView-UISlider&0-0-0").hex)
        #expect(e.props == JSONObject([
            ("title", "overridden"), ("controlEvents", "valueChanged"), ("value", .double(0.75)), ("indexPath", "1:4"),
            ("productId", "p-1"),
        ]))
        #expect(try TrackEvent(json: e.json) == e)
    }

    @Test func everyKindMapsToItsWireType() {
        let expected: [Interaction.Kind: EventType] = [
            .click: .click, .listItemClick: .listItemClick, .valueChanged: .valueChanged, .gesture: .gesture,
            .pageEnter: .pageEnter, .pageLeave: .pageLeave, .appStart: .appStart, .appForeground: .appForeground,
            .appBackground: .appBackground, .appEnd: .appEnd, .scroll: .scroll, .impression: .impression,
        ]
        for kind in Interaction.Kind.allCases {
            #expect(Interaction(kind: kind, timestamp: 0).eventType == expected[kind])
        }
    }

    @Test func everyRuleEventNamesOneKindOfTheSameWireType() {
        let expected: [ViewEvent: (Interaction.Kind, EventType)] = [
            .buttonClick: (.click, .click), .listItemClick: (.listItemClick, .listItemClick), .viewTap: (.gesture, .gesture),
            .valueChanged: (.valueChanged, .valueChanged), .pageEnter: (.pageEnter, .pageEnter), .pageLeave: (.pageLeave, .pageLeave),
            .scroll: (.scroll, .scroll), .impression: (.impression, .impression),
        ]
        for event in ViewEvent.allCases {
            let kind = Interaction.Kind(event)
            #expect(kind == expected[event]?.0 && kind.viewEvent == event)
            #expect(kind.eventType == expected[event]?.1)
        }
        let lifecycle = Interaction.Kind.allCases.filter { $0.viewEvent == nil }
        #expect(lifecycle == [.appStart, .appForeground, .appBackground, .appEnd])
    }

    @Test func namesAreKeptWithinTheWireLimit() throws {
        let long = String(repeating: "é", count: 300)
        let i = Interaction(kind: .click, eventCode: EventCode(controller: "C", target: "T", action: long), timestamp: 0)
        let e = i.trackEvent(id: "x")
        #expect(e.name.utf8.count <= 256)
        #expect(e.name.hasPrefix("C#T#éé"))
        #expect(try TrackEvent(json: e.json) == e)
    }

    @Test func controlEventsDescribeThemselves() {
        #expect(ControlEvents.touchUpInside.description == "touchUpInside")
        #expect(ControlEvents([.touchDown, .valueChanged]).description == "touchDown|valueChanged")
        #expect(ControlEvents.allEvents.description == "allEvents")
    }
}
