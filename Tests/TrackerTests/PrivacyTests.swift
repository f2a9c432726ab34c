import DemoShop
import EventModel
import Foundation
import Hooks
import KVCConfig
import Reporters
import Testing
import Tracker
import ViewIdentity

/// Ignored views and typed text (docs/privacy.md) on the simulated UIKit model: the demo shop
/// under hooks and a tracker reporting to memory.
@Suite struct PrivacyTests {
    static let favRow = "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:*-0-0"

    /// The tracker tests' harness with a plan of `documents`.
    static func harness(_ documents: String...) throws -> TrackerTests.Harness {
        var plan = TrackingPlan()
        for (i, text) in documents.enumerated() { try plan.merge(try ConfigLoader.parse(text: text, file: "doc\(i).json")) }
        return try TrackerTests.Harness(plan: plan)
    }

    /// `type path` (or name) of everything reported.
    static func summary(_ h: TrackerTests.Harness) -> [String] {
        h.events().map { "\($0.type.rawValue) \($0.path ?? $0.name)" }
    }

    @Test func thePlansIgnorePatternsSilenceAViewAndItsSubtreeAPageWithItsPageEvents() throws {
        let h = try Self.harness(
            """
            {"ignore": ["HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:1", "DetailViewController(gift)&0"]}
            """)
        try h.perform(.launch, .tapFavourite(row: 1), .tapFavourite(row: 0), .selectRow(2), .addToCart, .back)
        #expect(
            Self.summary(h) == [
                "app_start app_start", "page_enter HomeViewController&0",
                // Row 1's button is inside the ignored cell; row 0's is not.
                "click HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:0-0-0",
                "list_item_click HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:2",
                "page_leave HomeViewController&0",
                // The gift card's page: no enter, no click, no leave.
                "page_enter HomeViewController&0",
            ])
        #expect(h.tracker.statistics.ignored == 4)
    }

    @Test func aViewMarkedAutotrackIgnoreIsSilencedWithEverythingInsideIt() throws {
        let h = try Self.harness()
        try h.perform(.launch)
        let app = try #require(h.session.app)
        app.home.tableView.accessibilityIdentifier = TrackingIgnoreMarker.name
        try h.perform(.tapFavourite(row: 0), .scrollToRow(3), .selectRow(4))
        // A product page whose root view is marked once shown: from then on the whole page, its
        // page events included.
        try #require(app.detail).view.accessibilityIdentifier = "autotrack-ignore"
        try h.perform(.addToCart, .back, .toggleInStock)
        #expect(
            Self.summary(h) == [
                "app_start app_start", "page_enter HomeViewController&0",
                // The list's click, scroll and selection are gone; the home page is left and entered.
                "page_leave HomeViewController&0", "page_enter DetailViewController&0",
                "page_enter HomeViewController&0",
                "value_changed HomeViewController-UIView-UISwitch&0-0-0",
            ])
        #expect(h.tracker.statistics.ignored == 5)
    }

    @Test func typedTextIsReadOnlyByARuleThatSaysReadTextAndAPasswordNever() throws {
        let cart = "DetailViewController-UIView-UIButton&0-0-2"
        func rule(_ id: String, _ index: Int, readText: Bool?) -> String {
            """
            {"id": "\(id)", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick", "viewPath": "\(cart)",
             "keyPath": "superview.subviews.\(index).text", "keyName": "\(id)"\(readText.map { ", \"readText\": \($0)" } ?? "")}
            """
        }
        // The detail page has 8 subviews; the test adds a note field (8) and a password field (9).
        let h = try Self.harness(
            "{\"rules\": [\(rule("note", 8, readText: nil)), \(rule("noteRead", 8, readText: true)), "
                + "\(rule("noteOff", 8, readText: false)), \(rule("password", 9, readText: true))]}")
        try h.perform(.launch, .selectRow(0))
        let page = try #require(h.session.app?.detail)
        let note = UITextField(placeholder: "Gift note")
        let password = UITextField(isSecureTextEntry: true)
        page.view.addSubview(note)
        page.view.addSubview(password)
        note.type("for Ann")
        password.type("hunter2")
        try h.perform(.addToCart)
        let events = h.events()
        let click = try #require(events.first { $0.type == .click })
        #expect(click.props["noteRead"] == .string("for Ann"))
        #expect(click.props["note"] == nil && click.props["noteOff"] == nil && click.props["password"] == nil)
        #expect(click.props["rules"] == .string("noteRead"))
        let errors = events.filter { $0.type == .kvcError }
        #expect(errors.map(\.name) == ["note", "noteOff", "password"])
        #expect(errors.allSatisfy { $0.props["missingKey"] == .string("text") })
        // Nothing typed is in any event.
        let typed = events.filter { event in event.json.jsonText.contains("hunter2") || event.json.jsonText.contains("for Ann") }
        #expect(typed.map(\.name) == [click.name])
    }

    @Test func readTextIsWrittenBackByTheRuleCodecAndLoadsOnlyAsABoolean() throws {
        let text = """
            {"rules": [{"id": "r", "appKey": "a", "appVersion": "*", "viewEvent": "ButtonClick", "viewPath": "A&0",
              "keyPath": "text", "keyName": "t", "readText": true}]}
            """
        let rule = try #require(try ConfigLoader.parse(text: text, file: "r.json").rules.first)
        #expect(rule.readText)
        #expect(KVCRule(jsonText: rule.json.jsonText, source: "db")?.json == rule.json)
        #expect(KVCRule(jsonText: rule.json.jsonText, source: "db")?.readText == true)
        let plain = try #require(try ConfigLoader.parse(text: text.replacingOccurrences(of: ", \"readText\": true", with: ""), file: "r.json").rules.first)
        #expect(!plain.readText && plain.json.jsonText.contains("readText") == false)
        #expect {
            _ = try ConfigLoader.parse(text: text.replacingOccurrences(of: "true}", with: "\"yes\"}"), file: "r.json")
        } throws: { error in
            "\(error)".contains("rules[0].readText") && "\(error)".contains("true or false")
        }
    }
}
