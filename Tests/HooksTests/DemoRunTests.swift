import DemoShop
import EventModel
import Hooks
import Interactions
import Reporters
import Testing
import Tracker
import ViewIdentity

@Suite struct DemoRunTests {
    /// One line per event: offset from the start, type, name, path, duration, props.
    private func lines(_ events: [TrackEvent], start: Int64) -> [String] {
        events.map { e in
            [
                String(e.ts - start), e.type.rawValue, e.name, e.path ?? "-", e.duration.map(String.init) ?? "-",
                JSONValue.object(e.props).jsonText,
            ].joined(separator: " | ")
        }
    }

    @Test func theStandardScriptProducesTheDocumentedEvents() throws {
        let memory = MemoryReporter()
        let reporting = ReportingSystem([memory])
        let observer = ReportingObserver(reporting: reporting, ids: EventIDGenerator(prefix: "demo"), session: "s1")
        let clock = ManualInteractionClock(wallMilliseconds: 1_700_000_000_000)
        let session = DemoRun(observer: observer, clock: clock)
        var narrated: [String] = []
        try session.run { i, step in narrated.append("\(i) \(step)") }
        #expect(reporting.flush())

        let events = memory.events
        let home = "HomeViewController"
        let cellButton = "\(home)-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton"
        #expect(lines(events, start: 1_700_000_000_000) == [
            "0 | app_start | app_start | - | - | {}",
            "0 | page_enter | \(home) | \(home)&0 | - | {\"title\":\"Home\",\"count\":1}",
            "1500 | click | \(home)#\(home)#onFavBtnPressed: | \(cellButton)&0-0-0-0:0-0-0 | - | {\"title\":\"Fav\",\"controlEvents\":\"touchUpInside\",\"indexPath\":\"0:0\"}",
            "2000 | list_item_click | \(home)#\(home)#tableView:didSelectRowAtIndexPath: | \(home)-UIView-UITableView-ProductCell&0-0-0-0:2 | - | {\"title\":\"Gift Card\",\"indexPath\":\"0:2\"}",
            "2000 | page_leave | \(home) | \(home)&0 | 2000 | {\"title\":\"Home\",\"count\":1}",
            "2000 | page_enter | DetailViewController(gift) | DetailViewController(gift)&0 | - | {\"title\":\"Gift Card\",\"count\":1}",
            "5000 | value_changed | DetailViewController#DetailViewController#onSizeChanged: | DetailViewController(gift)-UIView-UISegmentedControl&0-0-0 | - | {\"title\":\"L\",\"controlEvents\":\"valueChanged\",\"selectedIndex\":2}",
            "5000 | value_changed | DetailViewController#DetailViewController#onQuantityChanged: | DetailViewController(gift)-UIView-UIStepper&0-0-0 | - | {\"controlEvents\":\"valueChanged\",\"value\":2}",
            "5000 | value_changed | DetailViewController#DetailViewController#onQuantityChanged: | DetailViewController(gift)-UIView-UIStepper&0-0-0 | - | {\"controlEvents\":\"valueChanged\",\"value\":3}",
            "5000 | gesture | DetailViewController#DetailViewController#onImageTapped: | DetailViewController(gift)-UIView-UIImageView&0-0-0 | - | {\"gesture\":\"UITapGestureRecognizer\",\"tapCount\":1}",
            "5000 | click | DetailViewController#DetailViewController#onFavBtnPressed: | DetailViewController(gift)-UIView-UIButton&0-0-0 | - | {\"title\":\"Favourite\",\"controlEvents\":\"touchUpInside\"}",
            "5000 | click | DetailViewController#DetailViewController#onAddToCartPressed: | DetailViewController(gift)-UIView-UIButton&0-0-2 | - | {\"title\":\"Add to cart\",\"controlEvents\":\"touchUpInside\"}",
            "6000 | page_leave | DetailViewController(gift) | DetailViewController(gift)&0 | 4000 | {\"title\":\"Gift Card\",\"count\":1}",
            "6000 | page_enter | \(home) | \(home)&0 | - | {\"title\":\"Home\",\"count\":2}",
            "6500 | scroll | \(home)#\(home)#scrollViewDidEndDragging:willDecelerate: | \(home)-UIView-UITableView&0-0-0 | - | {\"value\":480}",
            "6500 | click | \(home)#\(home)#onShareBtnPressed: | \(cellButton)&0-0-0-0:7-0-1 | - | {\"title\":\"Share\",\"controlEvents\":\"touchUpInside\",\"indexPath\":\"0:7\"}",
            "6500 | list_item_click | \(home)#\(home)#tableView:didSelectRowAtIndexPath: | \(home)-UIView-UITableView-ProductCell&0-0-0-0:8 | - | {\"title\":\"Paper Filters\",\"indexPath\":\"0:8\"}",
            "6500 | page_leave | \(home) | \(home)&0 | 500 | {\"title\":\"Home\",\"count\":2}",
            "6500 | page_enter | DetailViewController | DetailViewController&0 | - | {\"title\":\"Paper Filters\",\"count\":1}",
            "8500 | click | DetailViewController#DetailViewController#onShareBtnPressed: | DetailViewController-UIView-UIButton&0-0-1 | - | {\"title\":\"Share\",\"controlEvents\":\"touchUpInside\"}",
            "8500 | page_leave | DetailViewController | DetailViewController&0 | 2000 | {\"title\":\"Paper Filters\",\"count\":1}",
            "8500 | page_enter | \(home) | \(home)&0 | - | {\"title\":\"Home\",\"count\":3}",
            "9200 | value_changed | \(home)#\(home)#onInStockSwitchChanged: | \(home)-UIView-UISwitch&0-0-0 | - | {\"controlEvents\":\"valueChanged\",\"isOn\":true}",
            "9500 | app_background | app_background | - | 9500 | {\"duration\":9500}",
            "14500 | app_foreground | app_foreground | - | - | {}",
        ])
        // Ids are unique and in order; every event carries the session and passes wire validation.
        #expect(events.map(\.id) == (1...25).map { "demo-\($0)" })
        #expect(events.allSatisfy { $0.session == "s1" })
        for e in events {
            #expect(try TrackEvent(json: e.json) == e)
            if let path = e.path { #expect(e.viewId == ViewID(canonical: path).hex) }
        }
        #expect(narrated.first == "0 launch the app")
        #expect(narrated.count == DemoScript.standard.steps.count)
        // The app itself behaved as without hooks.
        let app = try #require(session.app)
        #expect(app.home.favourites == ["p-1"])
        #expect(app.home.shared == ["p-8"])
        #expect(app.home.listed.count == 10)
        #expect(app.application.state == .active)
    }

    @Test func aStepThatCannotRunSaysWhy() throws {
        let session = DemoRun(observer: InteractionRecorder())
        #expect(throws: DemoStepError.self) { try session.perform(.tapFavourite(row: 0)) }
        try session.perform(.launch)
        do {
            try session.perform(.addToCart)
            Issue.record("addToCart ran without a detail page")
        } catch {
            #expect(error.description == "demo step \"tap Add to cart\" cannot run: no detail page is shown")
        }
        #expect(throws: DemoStepError.self) { try session.perform(.back) }
        #expect(throws: DemoStepError.self) { try session.perform(.foreground) }
    }
}

@Suite struct ActionInventoryTests {
    @Test func theDemoShopInventoryListsEveryActionByClass() {
        #expect(ActionInventory.demoShop() == [
            "HomeViewController": [
                "onFavBtnPressed:", "onInStockSwitchChanged:", "onShareBtnPressed:",
                "scrollViewDidEndDragging:willDecelerate:", "tableView:didSelectRowAtIndexPath:",
            ],
            "DetailViewController": [
                "onAddToCartPressed:", "onFavBtnPressed:", "onImageTapped:", "onQuantityChanged:", "onShareBtnPressed:",
                "onSizeChanged:",
            ],
        ])
    }
}
