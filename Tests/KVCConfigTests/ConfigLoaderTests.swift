import EventModel
import Testing
import ViewIdentity

@testable import KVCConfig

/// The spec's three example documents (config.md §1–3), loaded from JSON and from XML plist.
enum SpecDocuments {
    static let eventTable = """
        {
          "HomeViewController": {
            "PageEventIDs":    { "Enter": "EVENT_HOME_ENTER_PAGE", "Leave": "EVENT_HOME_LEAVE_PAGE" },
            "ControlEventIDs": { "onFavBtnPressed:": "CTRL_EVENT_HOME_FAV", "onShareBtnPressed:": "CTRL_EVENT_HOME_SHARE" }
          }
        }
        """
    static let labelled = """
        {
          "trackedScreens": [ { "class": "ZOCMainViewController", "label": "Main screen" } ],
          "trackedEvents":  [ { "class": "ZOCMainViewController", "selector": "shareButtonPressed:", "label": "Share button" } ]
        }
        """
    static let rules = """
        {
          "rules": [
            { "id": "fav-product", "appKey": "shop", "appVersion": ">=1.2.0 <2.0.0",
              "viewEvent": "ListItemClick",
              "viewPath": "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*",
              "keyPath": "product.id", "keyName": "productId" }
          ]
        }
        """
}

@Suite struct ConfigLoaderTests {
    @Test(arguments: ["json", "plist"])
    func eventTableInBothFormats(format: String) throws {
        let text = try #require(try Formats.both(SpecDocuments.eventTable).first { $0.label == format }).text
        #expect(ConfigLoader.format(of: Array(text.utf8)) == (format == "json" ? .json : .plist))
        let plan = try ConfigLoader.parse(text: text, file: "events.\(format)")
        let home = try #require(plan.eventTable["HomeViewController"])
        #expect(home.pageEnter == "EVENT_HOME_ENTER_PAGE")
        #expect(home.pageLeave == "EVENT_HOME_LEAVE_PAGE")
        #expect(home.controlEvents == ["onFavBtnPressed:": "CTRL_EVENT_HOME_FAV", "onShareBtnPressed:": "CTRL_EVENT_HOME_SHARE"])
        #expect(
            home.locations["onFavBtnPressed:"]
                == ConfigLocation(file: "events.\(format)", keyPath: "HomeViewController.ControlEventIDs.onFavBtnPressed:"))
        #expect(home.locations["Enter"]?.keyPath == "HomeViewController.PageEventIDs.Enter")
        #expect(plan.rules.isEmpty && plan.screens.isEmpty && plan.events.isEmpty)
    }

    @Test(arguments: ["json", "plist"])
    func labelledInBothFormats(format: String) throws {
        let text = try #require(try Formats.both(SpecDocuments.labelled).first { $0.label == format }).text
        let plan = try ConfigLoader.parse(text: text, file: "labels")
        #expect(plan.screens == [LabelledScreen(className: "ZOCMainViewController", label: "Main screen", location: ConfigLocation(file: "labels", keyPath: "trackedScreens[0]"))])
        #expect(
            plan.events == [
                LabelledEvent(
                    className: "ZOCMainViewController", selector: "shareButtonPressed:", label: "Share button",
                    location: ConfigLocation(file: "labels", keyPath: "trackedEvents[0]"))
            ])
        #expect(plan.eventTable.isEmpty)
    }

    @Test(arguments: ["json", "plist"])
    func rulesInBothFormats(format: String) throws {
        let text = try #require(try Formats.both(SpecDocuments.rules).first { $0.label == format }).text
        let plan = try ConfigLoader.parse(text: text, file: "rules")
        let rule = try #require(plan.rules.first)
        #expect(plan.rules.count == 1)
        #expect(rule.id == "fav-product")
        #expect(rule.appKey == "shop")
        #expect(rule.appVersion.contains(try #require(AppVersion("1.5"))))
        #expect(!rule.appVersion.contains(try #require(AppVersion("2.0"))))
        #expect(rule.viewEvent == .listItemClick)
        #expect(rule.viewPath == (try PathPattern("HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*")))
        #expect(rule.keyPath?.parts == [.key("product"), .key("id")])
        #expect(rule.keyName == "productId")
        #expect(rule.content == nil)
        #expect(rule.location == ConfigLocation(file: "rules", keyPath: "rules[0]"))
    }

    @Test func ruleWithContentAndEveryViewEvent() throws {
        for event in ViewEvent.allCases {
            let json = """
                {"rules":[{"id":"r","appKey":"a","appVersion":"*","viewEvent":"\(event.rawValue)","viewPath":"A-B&0-1",
                "keyPath":"items.0.price","keyName":"price","content":"Buy"}]}
                """
            let rule = try #require(try ConfigLoader.parse(text: json, file: "f").rules.first)
            #expect(rule.viewEvent == event)
            #expect(rule.content == "Buy")
            #expect(rule.keyPath?.parts == [.key("items"), .index(0), .key("price")])
            #expect(rule.appVersion.comparators.isEmpty)
        }
    }

    @Test func aDefinitionHasANameAndMayReadNothing() throws {
        let json = """
            {"rules":[{"id":"buy","name":"Buy button","appKey":"a","appVersion":"*","viewEvent":"ButtonClick",
            "viewPath":"A-B&0-*","content":"Buy"}]}
            """
        let rule = try #require(try ConfigLoader.parse(text: json, file: "f").rules.first)
        #expect(rule.name == "Buy button")
        #expect(rule.keyPath == nil && rule.keyName == nil)
        // The codec writes back what it read: a name, no keyPath or keyName.
        let written = rule.json.objectValue
        #expect(written?["name"] == .string("Buy button"))
        #expect(written?["keyPath"] == nil && written?["keyName"] == nil)
        #expect(try KVCRule.rules(json: [rule.json], source: "wire").map(\.json) == [rule.json])
        // Without a key path a rule reads nothing and never misses.
        #expect(try rule.value(from: ["x": 1], appVersion: "1").get() == .null)
    }

    @Test func shapeIsJudgedByContentNotByName() throws {
        let plist = PlistText.document(try JSONValue.parse(SpecDocuments.rules))
        // A plist in a file named .json, JSON in a file named .plist: both load.
        #expect(try ConfigLoader.parse(text: plist, file: "rules.json").rules.count == 1)
        #expect(try ConfigLoader.parse(text: "\u{FEFF}  \n" + SpecDocuments.labelled, file: "x.plist").screens.count == 1)
        #expect(DocumentShape.detect(try JSONValue.parse(SpecDocuments.eventTable)) == .eventTable)
        #expect(DocumentShape.detect(try JSONValue.parse(SpecDocuments.labelled)) == .labelled)
        #expect(DocumentShape.detect(try JSONValue.parse(SpecDocuments.rules)) == .rules)
        #expect(DocumentShape.detect(try JSONValue.parse("[1]")) == nil)
        // A class literally called "rules" is still an event table entry.
        let odd = try ConfigLoader.parse(text: #"{"rules":{"PageEventIDs":{"Enter":"E"}}}"#, file: "f")
        #expect(odd.eventTable["rules"]?.pageEnter == "E")
    }

    @Test func emptyObjectIsAnEmptyPlan() throws {
        #expect(try ConfigLoader.parse(text: "{}", file: "f") == TrackingPlan())
        #expect(try ConfigLoader.parse(text: "<plist><dict/></plist>", file: "f") == TrackingPlan())
    }

    @Test func severalFilesMergeInOrder() throws {
        let dir = Fixture.directory([
            "a.json": SpecDocuments.eventTable,
            "b.plist": PlistText.document(try JSONValue.parse(SpecDocuments.labelled)),
            "c.xml": PlistText.document(try JSONValue.parse(SpecDocuments.rules)),
            "d.json": #"{"rules":[{"id":"second","appKey":"shop","appVersion":"1.0","viewEvent":"ButtonClick","viewPath":"A&0","keyPath":"x","keyName":"x"}]}"#,
            "e.json": #"{"OtherViewController":{"ControlEventIDs":{"tap:":"T"}},"HomeViewController":{"ControlEventIDs":{"more:":"M"}}}"#,
        ])
        let plan = try TrackingPlan.load(files: ["a.json", "b.plist", "c.xml", "d.json", "e.json"].map { dir + "/" + $0 })
        #expect(plan.rules.map(\.id) == ["fav-product", "second"])
        #expect(plan.screens.count == 1 && plan.events.count == 1)
        #expect(plan.eventTable["HomeViewController"]?.controlEvents.count == 3)
        #expect(plan.eventTable["OtherViewController"]?.controlEvents == ["tap:": "T"])
        #expect(plan.eventTable["HomeViewController"]?.locations["more:"]?.file == dir + "/e.json")
    }

    @Test func rulesRoundTripThroughTheirJSON() throws {
        let plan = try ConfigLoader.parse(text: SpecDocuments.rules, file: "r")
        let again = try ConfigLoader.rules(json: plan.rulesDocument, file: "wire")
        #expect(again.map(\.json) == plan.rules.map(\.json))
        #expect(try ConfigLoader.rules(json: .array(plan.rules.map(\.json)), file: "wire").count == 1)
        #expect(throws: ConfigError.self) { try ConfigLoader.rules(json: SpecDocuments.labelledJSON, file: "wire") }
    }
}

extension SpecDocuments {
    static var labelledJSON: JSONValue { (try? JSONValue.parse(labelled)) ?? .null }
}

@Suite struct ConfigLoaderBytesTests {
    @Test func anyCollectionOfBytes() throws {
        let bytes = Array(("  " + SpecDocuments.rules).utf8)
        #expect(try ConfigLoader.parse(data: bytes[2...], file: "slice").rules.count == 1)
        #expect(try ConfigLoader.parse(data: bytes, file: "array").rules.count == 1)
    }
}
