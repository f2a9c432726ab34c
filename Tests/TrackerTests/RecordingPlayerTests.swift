import EventModel
import Hooks
import Interactions
import Testing
import Tracker
import ViewIdentity

@Suite struct RecordingPlayerTests {
    static let session = """
        {"appKey":"shop","appVersion":"1.2.0","startTs":1000,"steps":[
          {"tree":{"type":"Shop.DetailViewController","role":"controller","alias":"gift","id":"detail","title":"Gift Card","children":[
            {"type":"UIView","children":[
              {"type":"UITableView","id":"table","children":[
                {"type":"Shop.OptionCell","role":"cell","indexPath":[1,3],"id":"cell","title":"Wrap","children":[
                  {"type":"UISwitch","id":"wrap"}
                ]}
              ]},
              {"type":"UIImageView","id":"image"},
              {"type":"UIButton","id":"buy","title":"Buy"}
            ]}
          ]}},
          {"enter":"detail","t":0},
          {"tap":"buy","action":"onBuy:","t":100},
          {"change":"wrap","action":"onWrap:","value":true,"t":200},
          {"select":"cell","t":300},
          {"gesture":"image","action":"onZoom:","target":"Shop.ZoomHandler","t":400},
          {"scroll":"table","value":120,"t":500},
          {"leave":"detail","t":1500},
          {"enter":"detail","t":1600}
        ]}
        """

    @Test func interactionsAreWhatTheHooksWouldDeliver() throws {
        let recording = try Recording(json: Array(Self.session.utf8))
        let all = RecordingPlayer(recording, now: 99).interactions()
        #expect(all.map(\.kind) == [.pageEnter, .click, .valueChanged, .listItemClick, .gesture, .scroll, .pageLeave, .pageEnter])
        #expect(all.map(\.timestamp) == [1000, 1100, 1200, 1300, 1400, 1500, 2500, 2600])
        #expect(all.map { $0.eventCode?.description } == [
            nil,
            "DetailViewController#DetailViewController#onBuy:",
            "DetailViewController#DetailViewController#onWrap:",
            "DetailViewController#DetailViewController#tableView:didSelectRowAtIndexPath:",
            "DetailViewController#ZoomHandler#onZoom:",
            "DetailViewController#DetailViewController#scrollViewDidEndDragging:willDecelerate:",
            nil, nil,
        ])
        #expect(all.allSatisfy { $0.page == "DetailViewController(gift)" })
        #expect(all[1].controlEvents == .touchUpInside)
        #expect(all[1].title == "Buy")
        #expect(all[2].controlEvents == .valueChanged)
        #expect(all[2].value == ControlValue(isOn: true))
        #expect(all[2].indexPath == CellIndexPath(section: 1, row: 3))
        #expect(all[3].indexPath == CellIndexPath(section: 1, row: 3))
        #expect(all[3].title == "Wrap")
        #expect(all[4].gesture == "UITapGestureRecognizer")
        #expect(all[5].value == ControlValue(value: 120))
        #expect(all[6].duration == 1500)
        #expect(all.map(\.pageCount) == [1, nil, nil, nil, nil, nil, 1, 2])
        #expect(all[7].duration == nil)
        #expect(all[3].viewPath?.canonical == "DetailViewController(gift)-UIView-UITableView-OptionCell&0-0-0-1:3")
    }

    @Test func startTsFallsBackToNow() throws {
        let recording = try Recording(
            json: Array(#"{"appKey":"a","appVersion":"1","steps":[{"tree":{"type":"V","role":"controller","id":"v"}},{"enter":"v","t":5}]}"#.utf8))
        #expect(RecordingPlayer(recording, now: 7000).interactions().map(\.timestamp) == [7005])
        #expect(RecordingPlayer(recording, startTs: 10, now: 7000).interactions().map(\.timestamp) == [15])
    }
}
