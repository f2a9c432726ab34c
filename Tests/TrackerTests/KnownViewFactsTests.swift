import EventModel
import Interactions
import KVCConfig
import Reporters
import Testing
import Tracker
import ViewIdentity

/// What the hooks already found for an interaction (the node's path, in the walk that placed it,
/// and the node's title) is what the tracker applies click rules, names the event and matches
/// rules with: it walks and reads nothing again. Without them it finds both itself, so a title
/// that changed between two clicks is matched as it is at each click.
@Suite struct KnownViewFactsTests {
    /// A view that counts how often the tracker asks for its title and its siblings.
    final class CountedNode: ViewNode {
        let typeName: String
        let role: ViewRole
        weak var parent: CountedNode?
        var children: [CountedNode] = []
        var label: String?
        var titleReads = 0
        var childReads = 0

        init(_ typeName: String, _ role: ViewRole = .view, label: String? = nil) {
            self.typeName = typeName
            self.role = role
            self.label = label
        }

        var parentNode: (any ViewNode)? { parent }
        var childNodes: [any ViewNode] {
            childReads += 1
            return children
        }
        var title: String? {
            titleReads += 1
            return label
        }

        func add(_ c: CountedNode) {
            c.parent = self
            children.append(c)
        }
    }

    static let rules = """
        {"rules": [
          {"id": "buy", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
           "viewPath": "Page-Box-Button&0-0-1", "content": "Buy"},
          {"id": "sold", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
           "viewPath": "Page-Box-Button&0-0-1", "content": "Sold out"}
        ]}
        """

    /// A page with a box of two buttons; clicks on the second, with the tracker's events.
    struct Harness {
        let memory = MemoryReporter()
        let reporting: ReportingSystem
        let tracker: Tracker
        let root = CountedNode("Page", .controller)
        let button = CountedNode("Button", label: "Buy")

        init() throws {
            let plan = try ConfigLoader.parse(text: KnownViewFactsTests.rules, file: "rules.json")
            reporting = ReportingSystem([memory], label: "known-facts-tests")
            var settings = TrackerSettings()
            settings.debounce = .zero
            tracker = Tracker(
                plan: plan, app: try TrackedApp(key: "shop", version: "1.0.0"), reporting: reporting, session: "t", settings: settings)
            let box = CountedNode("Box")
            root.add(box)
            box.add(CountedNode("Button", label: "Back"))
            box.add(button)
        }

        func click(at ts: Int64, path: ViewPath? = nil, title: String?? = nil, code: EventCode? = nil) {
            var i = Interaction(kind: .click, node: button, eventCode: code, title: button.label, timestamp: ts)
            i.knownPath = path
            i.knownNodeTitle = title
            tracker.observe(i)
        }

        func events() -> [TrackEvent] {
            #expect(reporting.flush(timeout: .seconds(10)))
            return memory.events
        }
    }

    @Test func theHooksPathAndTitleAreUsedAndNothingIsWalkedOrReadAgain() throws {
        let h = try Harness()
        let path = ViewPath(of: h.button)
        let (titles, children) = (h.button.titleReads, h.root.children[0].childReads)
        h.click(at: 1_000, path: path, title: .some("Sold out"))
        let e = try #require(h.events().first)
        #expect(e.path == "Page-Box-Button&0-0-1")
        #expect(e.viewId == path.viewID.hex)
        // The rule of the title the hooks read, not of the node's title now.
        #expect(e.props["rules"] == "sold")
        #expect(h.button.titleReads == titles && h.root.children[0].childReads == children)
    }

    @Test func withoutThemTheTrackerFindsBothAndSeesAChangedTitle() throws {
        let h = try Harness()
        h.click(at: 1_000)
        h.button.label = "Sold out"
        h.click(at: 5_000)
        let events = h.events()
        #expect(events.map(\.path) == ["Page-Box-Button&0-0-1", "Page-Box-Button&0-0-1"])
        #expect(events.map { $0.props["rules"] } == ["buy", "sold"])
        #expect(h.button.titleReads >= 2 && h.root.children[0].childReads >= 2)
    }

    /// The tracker keeps the last event code's name: each event is still named by its own code.
    @Test func eachEventIsNamedByItsOwnCodeHoweverCodesAlternate() throws {
        let h = try Harness()
        let buy = EventCode(controller: "Page", target: "Shop", action: "buy:")
        let back = EventCode(controller: "Page", target: "Shop", action: "back:")
        let other = EventCode(controller: "Other", target: "Shop", action: "buy:")
        for (k, code) in [buy, buy, back, buy, other, other, buy].enumerated() {
            h.click(at: 1_000 + Int64(k) * 2_000, code: code)
        }
        h.click(at: 20_000)
        #expect(
            h.events().map(\.name) == [
                "Page#Shop#buy:", "Page#Shop#buy:", "Page#Shop#back:", "Page#Shop#buy:", "Other#Shop#buy:", "Other#Shop#buy:",
                "Page#Shop#buy:", "Button",
            ])
    }
}
