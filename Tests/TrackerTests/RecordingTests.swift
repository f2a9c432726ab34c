import EventModel
import Hooks
import Testing
import Tracker
import ViewIdentity

@Suite struct RecordingTests {
    static let tree = """
        {"type":"Shop.HomeViewController","role":"controller","id":"home","children":[
          {"type":"UIView","children":[
            {"type":"UITableView","id":"table","children":[
              {"type":"Shop.ProductCell","role":"cell","indexPath":[0,0],"id":"cell0","props":{"product":{"id":"p-1"}}}
            ]},
            {"type":"UIButton","id":"fav","title":"Fav"}
          ]}
        ]}
        """

    func recording(_ steps: String, header: String = #""appKey":"shop","appVersion":"1.2.0","#) throws(RecordingFormatError)
        -> Recording
    {
        try Recording(json: Array("{\(header)\"steps\":[\(steps)]}".utf8), file: "s.json")
    }

    func error(_ steps: String, header: String = #""appKey":"shop","appVersion":"1.2.0","#) -> String? {
        do {
            _ = try recording(steps, header: header)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func readsTreesAndInteractionsInOrder() throws {
        let r = try recording(
            """
            {"tree":\(Self.tree)},
            {"enter":"home","t":0},
            {"tap":"fav","action":"onFavBtnPressed:","target":"Shop.HomeViewController","t":1200},
            {"select":"cell0","t":1500},
            {"change":"fav","action":"onToggle:","value":true},
            {"leave":"home","t":2500}
            """, header: #""appKey":"shop","appVersion":"1.2.0","session":"rec-1","startTs":1000,"#)
        #expect(r.appKey == "shop")
        #expect(r.appVersion == "1.2.0")
        #expect(r.session == "rec-1")
        #expect(r.startTs == 1000)
        #expect(r.steps.count == 6)
        guard case .show(let tree) = r.steps[0] else {
            Issue.record("first step is not a tree")
            return
        }
        let interactions = r.steps.compactMap { step -> RecordedInteraction? in
            if case .interact(let i) = step { return i }
            return nil
        }
        #expect(interactions.map(\.kind) == [.enter, .tap, .select, .change, .leave])
        #expect(interactions.map(\.t) == [0, 1200, 1500, 1500, 2500])
        #expect(interactions[1].node === tree.node(id: "fav"))
        #expect(interactions[1].action == "onFavBtnPressed:")
        #expect(interactions[1].target == "Shop.HomeViewController")
        #expect(interactions[2].node.viewPath.canonical == "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:0")
        #expect(interactions[3].value == .bool(true))
        #expect(interactions[3].target == nil)
    }

    @Test func namesTheStepAndFieldAtFault() {
        let t = "{\"tree\":\(Self.tree)}"
        #expect(error(#"{"enter":"home"}"#)
            == #"s.json: steps[0] acts on node "home" before any tree is shown; add a {"tree": …} step first"#)
        #expect(error(#"\#(t),{"tap":"nope","action":"a:"}"#)
            == #"s.json: steps[1].tap names node "nope", which the current tree lacks (its ids: home, table, cell0, fav)"#)
        #expect(error(#"\#(t),{"select":"table"}"#) == #"s.json: steps[1].select names node "table", a view; select needs a cell"#)
        #expect(error(#"\#(t),{"enter":"fav"}"#) == #"s.json: steps[1].enter names node "fav", a view; page steps need a controller"#)
        #expect(error(#"\#(t),{"tap":"fav"}"#)
            == #"s.json: steps[1] is a tap without "action" (the action name, such as "onFavBtnPressed:")"#)
        #expect(error(#"\#(t),{"scroll":"table","t":5},{"scroll":"table","t":4}"#)
            == "s.json: steps[2].t is 4, earlier than the step before (5); times never go back")
        #expect(error(#"\#(t),{"scroll":"table","enter":"home"}"#)
            == "s.json: steps[1] has scroll and enter; give exactly one step key per step")
        #expect(error(#"{"tree":{"role":"view"}}"#)?
            .hasPrefix(#"s.json: steps[0].tree is not a valid view tree: the root node has a missing or empty "type""#) == true)
        #expect(error("", header: #""appVersion":"1","#) == "s.json: appKey is required (a non-empty string)")
        #expect(error("", header: #""format":"other/2","appKey":"a","appVersion":"1","#)
            == #"s.json: format is "other/2"; this reader understands "autotrack-session/1""#)
    }
}
