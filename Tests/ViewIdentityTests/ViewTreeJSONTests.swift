import EventModel
import Testing
import TestSupport
import ViewIdentity

@Suite struct ViewTreeJSONTests {
    @Test func aWrittenTreeReadsBackWithTheSamePathsAndFields() throws {
        let tree = try ViewTree(json: Array(Fixtures.specExampleTree.utf8))
        let again = try ViewTree(json: ViewTree.json(of: tree.root))
        #expect(again.identified.count == tree.identified.count)
        for (a, b) in zip(tree.identified, again.identified) {
            #expect(a.id == b.id)
            #expect(a.viewPath == b.viewPath)
            #expect(a.title == b.title && a.props == b.props && a.role == b.role && a.cellIndexPath == b.cellIndexPath)
        }
    }

    @Test func onlyWhatAppliesIsWritten() throws {
        let page = TreeNode(typeName: "Shop.DetailViewController", role: .controller, pageAlias: "gift")
        let view = TreeNode(typeName: "UIView", cellIndexPath: CellIndexPath(section: 0, row: 1), pageAlias: "ignored")
        page.append(view)
        #expect(
            ViewTree.json(of: page).jsonText
                == #"{"type":"Shop.DetailViewController","role":"controller","alias":"gift","children":[{"type":"UIView"}]}"#)
        // A subtree rooted at a controller keeps every path below it.
        let back = try ViewTree(json: ViewTree.json(of: page))
        #expect(back.root.children[0].viewPath == view.viewPath)
    }

    @Test func pageFileNamesAreSafe() {
        #expect(ViewTree.fileName(page: "DetailViewController(gift)") == "DetailViewController(gift).json")
        #expect(ViewTree.fileName(page: "GtkBox(cart)") == "GtkBox(cart).json")
        #expect(ViewTree.fileName(page: "a/b c:é") == "a_b_c__.json")
        #expect(ViewTree.fileName(page: "..") == "page...json")
        #expect(ViewTree.fileName(page: "") == "page.json")
    }
}
