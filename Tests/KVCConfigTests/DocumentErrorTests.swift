import EventModel
import Testing

@testable import KVCConfig

/// Every structural error, in both formats: its code, its key path, and what the message says.
@Suite struct DocumentErrorTests {
    struct Case: Sendable, CustomStringConvertible {
        var json: String
        var code: ConfigProblem.Code
        var keyPath: String
        var says: [String]
        var description: String { "\(code) at \(keyPath)" }
    }

    static let rule = #""id":"r","appKey":"a","appVersion":"*","viewEvent":"ButtonClick","viewPath":"A-B&0-0","keyPath":"x","keyName":"k""#

    static let cases: [Case] = [
        Case(json: #"{"Home":{"PageEventIDs":{"Enter":"E"}},"Bad":3}"#, code: .wrongType, keyPath: "Bad", says: ["expected an object with \"PageEventIDs\"", "found a number (3)"]),
        Case(json: #"{"Home":{"PageEventIds":{},"ControlEventIDs":{}}}"#, code: .unknownField, keyPath: "Home.PageEventIds", says: ["\"PageEventIDs\" or \"ControlEventIDs\"", "the member \"PageEventIds\""]),
        Case(json: #"{"Home":{"PageEventIDs":"E"}}"#, code: .wrongType, keyPath: "Home.PageEventIDs", says: ["{\"Enter\": id, \"Leave\": id}", "found \"E\""]),
        Case(json: #"{"Home":{"PageEventIDs":{"Entr":"E"}}}"#, code: .unknownField, keyPath: "Home.PageEventIDs.Entr", says: ["\"Enter\" or \"Leave\""]),
        Case(json: #"{"Home":{"PageEventIDs":{"Enter":""}}}"#, code: .emptyEventID, keyPath: "Home.PageEventIDs.Enter", says: ["expected a non-empty event id", "found an empty string"]),
        Case(json: #"{"Home":{"ControlEventIDs":{"onFavBtnPressed:":42}}}"#, code: .nonStringEventID, keyPath: "Home.ControlEventIDs.onFavBtnPressed:", says: ["expected a string event id", "found a number (42)"]),
        Case(json: #"{"Home":{"ControlEventIDs":{"onFavBtnPressed:":true}}}"#, code: .nonStringEventID, keyPath: "Home.ControlEventIDs.onFavBtnPressed:", says: ["found a boolean (true)"]),
        Case(json: #"{"Home":{"ControlEventIDs":{"on Fav":"X"}}}"#, code: .badSelector, keyPath: "Home.ControlEventIDs.on Fav", says: ["an action name", "found \"on Fav\""]),
        Case(json: #"{"Home":{"ControlEventIDs":{"tap:forEvent":"X"}}}"#, code: .badSelector, keyPath: "Home.ControlEventIDs.tap:forEvent", says: ["an action name"]),
        Case(json: #"{"Home":{"ControlEventIDs":["a:"]}}"#, code: .wrongType, keyPath: "Home.ControlEventIDs", says: ["found an array"]),
        Case(json: #"{"Home":{"PageEventIDs":{"Enter":"E"}},"Other":{}}"#, code: .missingField, keyPath: "Other", says: ["\"PageEventIDs\" and/or \"ControlEventIDs\"", "found an empty object"]),
        Case(json: #"{"trackedScreens":{}}"#, code: .wrongType, keyPath: "trackedScreens", says: ["an array of objects", "found an object"]),
        Case(json: #"{"trackedScreens":[{"class":"A","label":"a"},{"class":"B"}]}"#, code: .missingField, keyPath: "trackedScreens[1]", says: ["a field \"label\"", "found none"]),
        Case(json: #"{"trackedScreens":["A"]}"#, code: .wrongType, keyPath: "trackedScreens[0]", says: ["{\"class\", \"label\"}", "found \"A\""]),
        Case(json: #"{"trackedScreens":[{"class":7,"label":"a"}]}"#, code: .wrongType, keyPath: "trackedScreens[0].class", says: ["a string (the class name)", "a number (7)"]),
        Case(json: #"{"trackedScreens":[{"class":" ","label":"a"}]}"#, code: .emptyValue, keyPath: "trackedScreens[0].class", says: ["a non-empty string"]),
        Case(json: #"{"trackedEvents":[{"class":"A","selector":"share it","label":"a"}]}"#, code: .badSelector, keyPath: "trackedEvents[0].selector", says: ["found \"share it\""]),
        Case(json: #"{"trackedEvents":[{"class":"A","selector":"s:","label":"a","comment":"x"}]}"#, code: .unknownField, keyPath: "trackedEvents[0].comment", says: ["a tracked event to hold only"]),
        Case(json: #"{"trackedEvents":[],"extra":1}"#, code: .unknownField, keyPath: "extra", says: ["a labelled document to hold only"]),
        Case(json: #"{"rules":{}}"#, code: .wrongType, keyPath: "rules", says: ["an array of rule objects"]),
        Case(json: #"{"rules":[3]}"#, code: .wrongType, keyPath: "rules[0]", says: ["a rule object", "a number (3)"]),
        Case(json: #"{"rules":[{"id":"r","appKey":"a","appVersion":"*","viewEvent":"ButtonClick","viewPath":"A&0","keyPath":"x"}]}"#, code: .missingField, keyPath: "rules[0]", says: ["a field \"keyName\"", "found none"]),
        Case(json: #"{"rules":[{"id":"r","appKey":"a","appVersion":"*","viewEvent":"ButtonClick","viewPath":"A&0","keyName":"k"}]}"#, code: .missingField, keyPath: "rules[0]", says: ["a field \"keyPath\"", "go together, or both are left out"]),
        Case(json: #"{"rules":[{"#+rule+#","name":""}]}"#, code: .emptyValue, keyPath: "rules[0].name", says: ["the rule's display name"]),
        Case(json: #"{"rules":[{"#+rule+#","name":7}]}"#, code: .wrongType, keyPath: "rules[0].name", says: ["a string (the rule's display name)"]),
        Case(json: #"{"rules":[{"#+rule.replacingAll(#""appVersion":"*""#, #""appVersion":"~1.0""#)+"}]}", code: .badVersionRange, keyPath: "rules[0].appVersion", says: ["a version range", "\"~1.0\""]),
        Case(json: #"{"rules":[{"#+rule.replacingAll(#""appVersion":"*""#, #""appVersion":">=""#)+"}]}", code: .badVersionRange, keyPath: "rules[0].appVersion", says: ["\"\" is not a version"]),
        Case(json: #"{"rules":[{"#+rule.replacingAll("ButtonClick", "Click")+"}]}", code: .badViewEvent, keyPath: "rules[0].viewEvent", says: ["one of ButtonClick, ListItemClick", "found \"Click\""]),
        Case(json: #"{"rules":[{"#+rule.replacingAll("A-B&0-0", "A-B")+"}]}", code: .badViewPath, keyPath: "rules[0].viewPath", says: ["a view path pattern", "missing '&'"]),
        Case(json: #"{"rules":[{"#+rule.replacingAll(#""keyPath":"x""#, #""keyPath":"a..b""#)+"}]}", code: .badKeyPath, keyPath: "rules[0].keyPath", says: ["key path \"a..b\" has an empty part"]),
        Case(json: #"{"rules":[{"#+rule.replacingAll(#""keyName":"k""#, #""keyName":"""#)+"}]}", code: .emptyValue, keyPath: "rules[0].keyName", says: ["a non-empty string"]),
        Case(json: #"{"rules":[{"#+rule+#","content":5}]}"#, code: .wrongType, keyPath: "rules[0].content", says: ["a string (the title to match)"]),
        Case(json: #"{"rules":[{"#+rule+#","contnet":"x"}]}"#, code: .unknownField, keyPath: "rules[0].contnet", says: ["a rule to hold only"]),
        Case(json: #"{"rules":[],"trackedScreens":[]}"#, code: .unknownField, keyPath: "trackedScreens", says: ["a KVC rules document to hold only"]),
        Case(json: #"{"rules":[{"#+rule+"},{"+rule+"}]}", code: .conflict, keyPath: "rules[1].id", says: ["a rule id used once", "\"r\" again", "the other is at f: rules[0].id"]),
        Case(json: #"{"foo":1,"bar":{"x":2}}"#, code: .unknownShape, keyPath: "", says: ["one of the three configuration shapes", "the keys \"foo\", \"bar\""]),
        Case(json: #"[{"Home":{}}]"#, code: .unknownShape, keyPath: "", says: ["found an array"]),
        Case(json: #"{"ignore":"A&0"}"#, code: .wrongType, keyPath: "ignore", says: ["an array of view path patterns", "found \"A&0\""]),
        Case(json: #"{"ignore":["A&0",3]}"#, code: .wrongType, keyPath: "ignore[1]", says: ["a string (a view path pattern)", "a number (3)"]),
        Case(json: #"{"rules":[],"ignore":["A-B&0"]}"#, code: .badViewPath, keyPath: "ignore[0]", says: ["a view path pattern"]),
        Case(json: #"{"ignore":[],"ignored":[]}"#, code: .unknownField, keyPath: "ignored", says: ["a KVC rules document to hold only \"rules\", \"ignore\""]),
        Case(json: "{\"rules\":[{\(rule),\"readText\":1}]}", code: .wrongType, keyPath: "rules[0].readText", says: ["true or false", "a number (1)"]),
    ]

    @Test(arguments: cases)
    func errorNamesItsPlace(c: Case) throws {
        for (format, text) in try Formats.both(c.json) {
            let reading = ConfigLoader.read(data: Array(text.utf8), file: "f")
            let problem = try #require(reading.problems.first, "\(format): no problem reported")
            #expect(reading.problems.count == 1, "\(format): \(reading.problems)")
            #expect(problem.code == c.code, "\(format): \(problem)")
            #expect(problem.location == ConfigLocation(file: "f", keyPath: c.keyPath), "\(format)")
            let prefix = c.keyPath.isEmpty ? "f: expected " : "f: \(c.keyPath): expected "
            #expect(problem.description.hasPrefix(prefix), "\(format): \(problem)")
            for s in c.says { #expect(problem.description.contains(s), "\(format): \(problem) lacks \(s)") }
            #expect(throws: ConfigError.self) { try ConfigLoader.parse(text: text, file: "f") }
        }
    }

    @Test func everyProblemOfADocumentIsCollected() throws {
        let json = """
            {"rules":[
              {"id":"","appKey":"a","appVersion":"1..2","viewEvent":"Tap","viewPath":"A","keyPath":".x","keyName":"k"},
              {"id":"ok","appKey":"a","appVersion":"*","viewEvent":"ViewTap","viewPath":"A&0","keyPath":"x","keyName":"k"}
            ]}
            """
        for (format, text) in try Formats.both(json) {
            let r = ConfigLoader.read(data: Array(text.utf8), file: "f")
            #expect(
                r.problems.map(\.location.keyPath)
                    == ["rules[0].id", "rules[0].appVersion", "rules[0].viewEvent", "rules[0].viewPath", "rules[0].keyPath"],
                "\(format)")
            #expect(r.plan.rules.map(\.id) == ["ok"], "the valid rule is kept")
            do {
                _ = try ConfigLoader.parse(text: text, file: "f")
                Issue.record("\(format): loaded")
            } catch {
                #expect(error.problems.count == 5)
                #expect(error.description.split(separator: "\n").count == 5)
            }
        }
    }

    @Test func theBriefsExampleLocationReadsWell() throws {
        let r = ConfigLoader.read(data: Array(#"{"HomeViewController":{"ControlEventIDs":{"onFavBtnPressed:":""}}}"#.utf8), file: "home.json")
        #expect(
            r.problems.map(\.description) == [
                "home.json: HomeViewController.ControlEventIDs.onFavBtnPressed:: expected a non-empty event id, found an empty string"
            ])
        #expect(r.problems.first?.className == "HomeViewController")
        #expect(r.problems.first?.action == "onFavBtnPressed:")
    }
}
