import EventModel
import TestSupport
import Testing
import ViewIdentity

/// viewpath.md §1: reading tree JSON, and errors that name the node.
@Suite struct ViewTreeTests {
    func tree(_ json: String) throws(ViewTreeError) -> ViewTree {
        try ViewTree(json: Array(json.utf8))
    }

    /// The error for `json`, which must be refused.
    func error(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> ViewTreeError? {
        do {
            _ = try tree(json)
            Issue.record("the tree was accepted", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsEveryFieldOfTheSpecTree() throws {
        let t = try tree(Fixtures.specExampleTree)
        #expect(t.identified.map { $0.id } == ["home", "root", "table", "cell", "content", "btn0", "label", "btn1"])
        let cell = try #require(t.node(id: "cell"))
        #expect(cell.role == .cell)
        #expect(cell.cellIndexPath == CellIndexPath(section: 0, row: 2))
        #expect(cell.typeName == "Shop.ProductCell")
        #expect(cell.props?["product"]?["id"] == "p-42")
        #expect(cell.position == "children[0].children[0].children[0]")
        #expect(t.node(id: "btn1")?.title == "Buy")
        #expect(t.root.role == .controller)
        #expect(t.node(id: "nope") == nil)
    }

    @Test func unknownFieldsAndNullsAreIgnored() throws {
        let t = try tree(#"{"type":"Shop.Home","role":"controller","frame":[0,0,320,480],"alias":null,"id":"h","children":[{"type":"UIView","title":null,"children":null,"props":null}]}"#)
        #expect(t.root.pageAlias == nil)
        #expect(t.root.children.count == 1)
        #expect(t.root.children[0].props == nil)
        #expect(t.root.children[0].viewPath.canonical == "Home-UIView&0-0")
    }

    @Test func aMissingTypeNamesTheNodeByID() throws {
        let e = try #require(error(#"{"type":"Home","children":[{"id":"buy","title":"Buy"}]}"#))
        #expect(e.code == .missingType)
        #expect(e.locator == #"node "buy" (children[0])"#)
        #expect(e.description.hasPrefix(#"node "buy" (children[0]) has a missing or empty "type""#))
    }

    @Test func aNodeWithoutAnIDIsNamedByItsPosition() throws {
        let json = #"{"type":"Home","children":[{"type":"A"},{"type":"B"},{"type":"C","children":[{"type":""}]}]}"#
        let e = try #require(error(json))
        #expect(e.code == .missingType)
        #expect(e.locator == "node at children[2].children[0]")
    }

    @Test func theRootIsNamedAsSuch() throws {
        #expect(error(#"{"role":"controller"}"#)?.locator == "the root node")
        #expect(error(#"{"id":"home","type":7}"#)?.locator == #"the root node "home""#)
        #expect(error(#"{"id":"home","type":7}"#)?.code == .wrongKind)
    }

    @Test func duplicateIDsNameBothNodes() throws {
        let e = try #require(error(#"{"type":"Home","id":"a","children":[{"type":"X","id":"b"},{"type":"Y","children":[{"type":"Z","id":"b"}]}]}"#))
        #expect(e.code == .duplicateID)
        #expect(e.description == #"node "b" (children[1].children[0]) repeats the id of the node at children[0]; ids must be unique"#)
        let rootDup = try #require(error(#"{"type":"Home","id":"a","children":[{"type":"X","id":"a"}]}"#))
        #expect(rootDup.description.contains("the node at the root node"))
    }

    @Test(arguments: [
        #"[0]"#, #"[0,1,2]"#, #"[0,-1]"#, #"[-1,0]"#, #"[0,1.5]"#, #"[0,2.0]"#, #"[0,"1"]"#, #""0:1""#,
        #"{"section":0,"row":1}"#, #"[]"#, #"[0,99999999999999999999]"#,
    ])
    func malformedIndexPathsAreRefused(indexPath: String) throws {
        let e = try #require(error(#"{"type":"T","children":[{"type":"Cell","role":"cell","indexPath":\#(indexPath)}]}"#))
        #expect(e.code == .malformedIndexPath || (e.code == .invalidJSON && indexPath.contains("999")))
        if e.code == .malformedIndexPath {
            #expect(e.locator == "node at children[0]")
            #expect(e.reason.contains("expected [section, row], two integers ≥ 0"))
        }
    }

    @Test func anIndexPathIsCheckedEvenWhereItIsIgnored() throws {
        // On a view it does not enter the path, but a malformed one is still an error.
        let e = try #require(error(#"{"type":"T","children":[{"type":"UIView","indexPath":[1]}]}"#))
        #expect(e.code == .malformedIndexPath)
        let t = try tree(#"{"type":"T","children":[{"type":"UIView","indexPath":[1,2]}]}"#)
        #expect(t.root.children[0].viewPath.canonical == "T-UIView&0-0")
    }

    @Test(arguments: [#""""#, #""gift-card""#, #""gift card""#, #""ünï""#, #""a(b)""#])
    func malformedAliasesAreRefused(alias: String) throws {
        let e = try #require(error(#"{"type":"Detail","role":"controller","id":"d","alias":\#(alias)}"#))
        #expect(e.code == .malformedAlias)
        #expect(e.locator == #"the root node "d""#)
        #expect(e.reason.contains("[A-Za-z0-9_]+"))
    }

    @Test func anAliasThatIsNotAStringIsRefused() throws {
        #expect(error(#"{"type":"Detail","role":"controller","alias":5}"#)?.code == .wrongKind)
    }

    @Test func anUnknownRoleIsRefused() throws {
        let e = try #require(error(#"{"type":"T","children":[{"type":"X","role":"navigation"}]}"#))
        #expect(e.code == .unknownRole)
        #expect(e.reason.contains("window, controller, cell or view"))
    }

    @Test func wrongKindsOfValuesAreRefused() throws {
        #expect(error(#"{"type":"T","children":{"type":"X"}}"#)?.code == .wrongKind)
        #expect(error(#"{"type":"T","props":[1]}"#)?.code == .wrongKind)
        #expect(error(#"{"type":"T","id":3}"#)?.code == .wrongKind)
        let child = try #require(error(#"{"type":"T","children":[{"type":"X"},5]}"#))
        #expect(child.code == .notAnObject)
        #expect(child.locator == "node at children[1]")
        #expect(error("[1,2]")?.locator == "the root node")
    }

    @Test func invalidJSONSaysWhere() throws {
        let e = try #require(error(#"{"type":"T","children":[}"#))
        #expect(e.code == .invalidJSON)
        #expect(e.locator == "the document")
        #expect(e.description.contains("line 1"))
    }

    @Test func aChildThatOutlivesItsParentHasNoParent() {
        let child = TreeNode(typeName: "UIButton")
        do {
            let parent = TreeNode(typeName: "Shop.Panel")
            parent.append(child)
            #expect(child.parent === parent)
            #expect(child.viewPath.canonical == "Panel-UIButton&0-0")
        }
        #expect(child.parent == nil)
        #expect(child.viewPath.canonical == "UIButton&0")
    }

    @Test func treeNodesCanBeEditedLikeAToolkitsViews() {
        let a = TreeNode(typeName: "UIButton")
        let b = TreeNode(typeName: "UIButton")
        let left = TreeNode(typeName: "UIView")
        let right = TreeNode(typeName: "UIView")
        let root = TreeNode(typeName: "Home", role: .controller)
        root.append(left)
        root.append(right)
        left.append(a)
        left.append(b)
        #expect(path(of: b, in: root).canonical == "Home-UIView-UIButton&0-0-1")
        right.append(b)  // moves it
        #expect(left.children.count == 1)
        #expect(left.childNodes.count == 1)
        #expect(path(of: b, in: root).canonical == "Home-UIView-UIButton&0-1-0")
        b.removeFromParent()
        #expect(b.parent == nil)
        #expect(b.viewPath.canonical == "UIButton&0")
    }
}

@Suite struct TreeNodeCycleTests {
    @Test func appendingANodeBelowItselfStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let a = TreeNode(typeName: "A")
            let b = TreeNode(typeName: "B")
            a.append(b)
            b.append(a)
        }
    }
}
