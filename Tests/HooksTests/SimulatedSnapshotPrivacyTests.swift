import DemoShop
import EventModel
import Hooks
import Interactions
import Testing
import ViewIdentity

/// The simulated shop's snapshots keep docs/privacy.md: ignored views lose title and props, typed
/// text is never in props.
@Suite struct SimulatedSnapshotPrivacyTests {
    static func nodes(_ tree: JSONObject) -> [JSONObject] {
        var out: [JSONObject] = [tree]
        if case .array(let children)? = tree["children"] {
            for case .object(let c) in children { out += nodes(c) }
        }
        return out
    }

    @Test func markedViewsAndTypedTextStayOutOfTheTree() throws {
        let session = DemoRun(observer: InteractionRecorder(), clock: ManualInteractionClock(wallMilliseconds: 0))
        try session.perform(.launch)
        try session.perform(.selectRow(0))
        let page = try #require(session.app?.detail)
        let note = UITextField(placeholder: "Gift note")
        note.type("SECRET-NOTE")
        page.view.addSubview(note)
        page.priceLabel.accessibilityIdentifier = "autotrack-ignore"
        let snapshot = SimulatedSnapshot.take(page, capturedAt: 0)
        let all = Self.nodes(snapshot.tree)
        #expect(!JSONValue.object(snapshot.tree).jsonText.contains("SECRET-NOTE"))
        let field = try #require(all.first { $0["type"]?.stringValue?.hasSuffix("UITextField") == true })
        #expect(field["props"]?["placeholder"] == .string("Gift note") && field["props"]?["text"] == nil)
        let price = try #require(all.first { $0["path"] == .string(page.priceLabel.viewPath.canonical) })
        #expect(price["title"] == nil && price["props"] == nil)
        #expect(all.filter { $0["props"] != nil }.count >= 5, "the rest keeps its props")

        // The plan's pattern for the page: every node of it.
        let whole = SimulatedSnapshot.take(page, capturedAt: 0, ignoring: { $0.elements.first?.name == "DetailViewController" })
        #expect(Self.nodes(whole.tree).allSatisfy { $0["props"] == nil && $0["title"] == nil })
        #expect(whole.png != snapshot.png)
    }
}
