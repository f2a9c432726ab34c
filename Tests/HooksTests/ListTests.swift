import DemoShop
import EventModel
import Hooks
import Interactions
import Testing
import ViewIdentity

@Suite struct ListTests {
    @Test func selectingARowReportsTheCellBeforeTheDelegateRuns() throws {
        let recorder = InteractionRecorder()
        let session = DemoRun(observer: recorder)
        try session.perform(.launch)
        let app = try #require(session.app)
        var topAtObserve: UIViewController?
        recorder.onObserve = { i in if i.kind == .listItemClick { topAtObserve = app.navigation.topViewController } }
        try session.perform(.selectRow(2))

        #expect(topAtObserve === app.home)
        let click = try #require(recorder.seen.first { $0.kind == .listItemClick })
        #expect(click.event.name == "HomeViewController#HomeViewController#tableView:didSelectRowAtIndexPath:")
        #expect(click.event.path == "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:2")
        #expect(click.event.props["indexPath"] == .string("0:2"))
        #expect(click.event.props["title"] == .string("Gift Card"))
        #expect(click.productID == "p-3")
        #expect(app.detail?.product.id == "p-3")
    }

    @Test func reusedCellsReportTheRowTheyShowAtInteractionTime() throws {
        let recorder = InteractionRecorder()
        let session = DemoRun(observer: recorder)
        try session.perform(.launch)
        let app = try #require(session.app)
        let table = app.home.tableView
        let originalCells = Set(table.visibleCells.map { ObjectIdentifier($0) })
        #expect(originalCells.count == 4)

        try session.perform(.tapFavourite(row: 1))
        try session.perform(.scrollToRow(6))
        // Rows 6–9 now show through cells created for rows 0–3: no new cell was made.
        #expect(table.createdCellCount == 4)
        #expect(table.cellForRow(at: CellIndexPath(section: 0, row: 1)) == nil)
        try session.perform(.tapFavourite(row: 7))
        try session.perform(.selectRow(7))

        let favs = recorder.seen.filter { $0.kind == .click }
        try #require(favs.count == 2)
        #expect(favs[0].productID == "p-2")
        #expect(favs[1].productID == "p-8")
        #expect(favs[1].event.path == "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:7-0-0")
        #expect(favs[1].event.props["indexPath"] == .string("0:7"))
        let select = try #require(recorder.seen.first { $0.kind == .listItemClick })
        #expect(select.event.path == "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:7")
        #expect(select.productID == "p-8")
        // The cell of row 7 is one made for rows 0–3: identity is the path, not the object.
        #expect(Set(table.visibleCells.map { ObjectIdentifier($0) }) == originalCells)
        #expect(select.nodeID.map { originalCells.contains($0) } == true)
        #expect(app.home.favourites == ["p-2", "p-8"])
    }

    @Test func theSpecExamplePathIsTheShareButtonOfRow2() throws {
        let recorder = InteractionRecorder()
        let session = DemoRun(observer: recorder)
        try session.perform(.launch)
        try session.perform(.tapShare(row: 2))
        let e = try #require(recorder.events.last)
        // viewpath.md §2's example, produced by the demo app itself.
        #expect(e.path == "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:2-0-1")
        let node = try #require(session.app?.home.tableView.cellForRow(at: CellIndexPath(section: 0, row: 2)) as? ProductCell)
        #expect(node.shareButton.viewPath.xpath
            == "HomeViewController[0]/UIView[0]/UITableView[0]/ProductCell[0:2]/UITableViewCellContentView[0]/UIButton[1]")
        #expect(e.name == "HomeViewController#HomeViewController#onShareBtnPressed:")
        #expect(session.app?.home.shared == ["p-3"])
    }

    @Test func aRowOutOfViewCannotBeSelected() throws {
        let recorder = InteractionRecorder()
        let session = DemoRun(observer: recorder)
        try session.perform(.launch)
        #expect(throws: DemoStepError.self) { try session.perform(.selectRow(9)) }
        #expect(recorder.events.allSatisfy { $0.type != .listItemClick })
    }
}
