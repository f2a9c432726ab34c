import KVCConfig
import Matching
import Testing

/// The event table's page ids and screen labels, looked up by the page's name with its alias
/// first, then by its type name (docs/config.md §1).
@Suite struct EventTablePageTests {
    static let table = """
        {
          "GtkBox(page1)": {"PageEventIDs": {"Enter": "P1_ENTER", "Leave": "P1_LEAVE"}},
          "GtkBox": {"PageEventIDs": {"Enter": "BOX_ENTER", "Leave": "BOX_LEAVE"}, "ControlEventIDs": {"clicked": "BOX_CLICK"}},
          "DetailViewController(gift)": {"PageEventIDs": {"Enter": "GIFT_ENTER"}}
        }
        """
    static let screens = """
        {"trackedScreens": [{"class": "GtkBox(page1)", "label": "First page"}, {"class": "GtkBox", "label": "A box"}]}
        """

    @Test func aPagesNameWithItsAliasComesBeforeItsTypeName() throws {
        let plan = try ConfigLoader.parse(text: Self.table, file: "table.json")
            .merging(try ConfigLoader.parse(text: Self.screens, file: "screens.json"))
        let table = EventTable(plan: plan)
        #expect(table.pageEventID(className: "GtkBox(page1)", enter: true) == "P1_ENTER")
        #expect(table.pageEventID(className: "GtkBox(page1)", enter: false) == "P1_LEAVE")
        #expect(table.screenLabels(className: "GtkBox(page1)") == ["First page"])
        // Another page of the same type has no entry of its own: its type's.
        #expect(table.pageEventID(className: "GtkBox(page3)", enter: true) == "BOX_ENTER")
        #expect(table.screenLabels(className: "GtkBox(page3)") == ["A box"])
        #expect(table.pageEventID(className: "GtkBox", enter: true) == "BOX_ENTER")
        // A module-prefixed type with an alias: with the alias first, the prefix dropped.
        #expect(table.pageEventID(className: "Shop.DetailViewController(gift)", enter: true) == "GIFT_ENTER")
        #expect(table.pageEventID(className: "Shop.DetailViewController(other)", enter: true) == nil)
        #expect(table.controlEventID(className: "GtkBox", action: "clicked") == "BOX_CLICK")
        #expect(table.pageEventID(className: "GtkGrid(page1)", enter: true) == nil)
    }
}
