import KVCConfig
import PathDrift
import Testing

@Suite struct ActionRenamesTests {
    static let events = """
        {
          "HomeViewController": {
            "PageEventIDs": { "Enter": "EVENT_HOME_ENTER" },
            "ControlEventIDs": { "onFavBtnPressed:": "CTRL_HOME_FAV", "onShareBtnPressed:": "CTRL_HOME_SHARE",
                                 "onBuy:": "CTRL_HOME_BUY", "onTap:": "CTRL_HOME_TAP" }
          },
          "CartViewController": {
            "PageEventIDs": { "Enter": "EVENT_CART_ENTER" },
            "ControlEventIDs": { "onCheckout:": "CTRL_CART_CHECKOUT" }
          }
        }
        """

    static let inventory = Inventory(classes: [
        "HomeViewController": ["onFavButtonPressed:", "onShareBtnPressed:", "onTap1:", "onTap2:", "viewDidLoad"],
        "CartController": ["onCheckout:", "viewDidLoad"],
    ])

    func drift() throws -> [String: ActionDrift] {
        let plan = try ConfigLoader.parse(text: Self.events, file: "events.json")
        return Dictionary(uniqueKeysWithValues: ActionRenames.check(plan, inventory: Self.inventory).map { ($0.subject, $0) })
    }

    @Test func aRenamedActionIsSuggestedInItsClass() throws {
        let fav = try #require(try drift()["-[HomeViewController onFavBtnPressed:]"])
        #expect(fav.location.description == "events.json: HomeViewController.ControlEventIDs.onFavBtnPressed:")
        let s = try #require(fav.suggestion)
        #expect(s.subject == "-[HomeViewController onFavButtonPressed:]")
        // Class 1, action 1 - 3/19: the mean, rounded.
        #expect(s.score == 0.92)
    }

    @Test func aRenamedClassIsSuggestedAndItsActionsFollowIt() throws {
        let d = try drift()
        #expect(d["CartViewController"]?.suggestion?.subject == "CartController")
        #expect(d["CartViewController"]?.suggestion?.score == 0.78)  // 1 - 4/18
        #expect(d["-[CartViewController onCheckout:]"]?.suggestion?.subject == "-[CartController onCheckout:]")
    }

    @Test func farOrEquallyCloseNamesAreNotSuggested() throws {
        let d = try drift()
        let buy = try #require(d["-[HomeViewController onBuy:]"])
        #expect(buy.suggestion == nil)
        #expect(buy.candidates.isEmpty)
        let tap = try #require(d["-[HomeViewController onTap:]"])
        #expect(tap.suggestion == nil)
        #expect(tap.candidates.map(\.subject) == ["-[HomeViewController onTap1:]", "-[HomeViewController onTap2:]"])
        // What the code still has is not listed.
        #expect(d["-[HomeViewController onShareBtnPressed:]"] == nil)
        #expect(d["HomeViewController"] == nil)
    }
}
