import EventModel
import Testing

@testable import KVCConfig

@Suite struct ConfigCheckTests {
    func reading(_ docs: [(String, String)]) -> ConfigReading {
        var problems: [ConfigProblem] = []
        var plan = TrackingPlan()
        for (file, text) in docs {
            let r = ConfigLoader.read(data: Array(text.utf8), file: file)
            problems += r.problems
            plan = (try? plan.merging(r.plan)) ?? plan
        }
        return ConfigReading(plan: plan, problems: problems)
    }

    func lines(_ docs: [(String, String)], _ inventory: [String: Set<String>]) -> [String] {
        ConfigCheck.findings(reading(docs), inventory: Inventory(classes: inventory)).map(\.description)
    }

    @Test func theSpecsRenamedMethod() {
        // The code renamed onFavBtnPressed: to onMyFavBtnPressed:, so the configured action is gone.
        let code: [String: Set<String>] = ["HomeViewController": ["onMyFavBtnPressed:", "onShareBtnPressed:", "viewDidLoad"]]
        #expect(
            lines([("home.json", SpecDocuments.eventTable)], code) == [
                "missing-action -[HomeViewController onFavBtnPressed:]: configured at home.json: HomeViewController.ControlEventIDs.onFavBtnPressed:, but HomeViewController in the inventory has no such action"
            ])
        // Renamed with the marker instead, and still untracked: the marker rule reports it too.
        let marked: [String: Set<String>] = ["HomeViewController": ["onMyFavBtnPressed_UA:", "onShareBtnPressed:"]]
        #expect(
            lines([("home.json", SpecDocuments.eventTable)], marked) == [
                "missing-action -[HomeViewController onFavBtnPressed:]: configured at home.json: HomeViewController.ControlEventIDs.onFavBtnPressed:, but HomeViewController in the inventory has no such action",
                "untracked-marker -[HomeViewController onMyFavBtnPressed_UA:]: the action carries the _UA marker, but no configuration tracks it",
            ])
    }

    @Test func matchingCodeHasNoFindings() {
        let code: [String: Set<String>] = [
            "HomeViewController": ["onFavBtnPressed:", "onShareBtnPressed:", "viewDidLoad"],
            "ZOCMainViewController": ["shareButtonPressed_UA:"],
        ]
        #expect(lines([("home.json", SpecDocuments.eventTable), ("labels.json", SpecDocuments.labelled.replacingAll("shareButtonPressed:", "shareButtonPressed_UA:"))], code).isEmpty)
    }

    @Test func missingClassesOncePerClassFromEveryShape() {
        let lines = lines([("home.json", SpecDocuments.eventTable), ("labels.json", SpecDocuments.labelled)], [:])
        #expect(
            lines == [
                "missing-class HomeViewController: configured at home.json: HomeViewController, but the inventory has no such class",
                "missing-class ZOCMainViewController: configured at labels.json: trackedEvents[0], but the inventory has no such class",
            ])
    }

    @Test func labelledEventsAreCheckedForActions() {
        let lines = lines([("labels.json", SpecDocuments.labelled)], ["ZOCMainViewController": ["share:"]])
        #expect(
            lines == [
                "missing-action -[ZOCMainViewController shareButtonPressed:]: configured at labels.json: trackedEvents[0], but ZOCMainViewController in the inventory has no such action"
            ])
    }

    @Test func badEventIDsAndUnknownShapesAreFindings() {
        let doc = #"{"Home":{"PageEventIDs":{"Enter":7,"Leave":""},"ControlEventIDs":{"tap_UA:":"","go:":false}}}"#
        let lines = lines([("home.json", doc), ("odd.json", #"{"version":2}"#)], ["Home": ["tap_UA:", "go:"]])
        #expect(
            lines == [
                "unknown-shape odd.json: found an object with the keys \"version\"; expected an event table, labelled screens and events, or KVC rules",
                "empty-event-id Home: page Leave event id at home.json: Home.PageEventIDs.Leave is empty",
                "non-string-event-id Home: page Enter event id at home.json: Home.PageEventIDs.Enter is a number (7), expected a string",
                "non-string-event-id -[Home go:]: event id at home.json: Home.ControlEventIDs.go: is a boolean (false), expected a string",
                // tap_UA: is meant to be tracked (its id is wrong), so it is not also "untracked".
                "empty-event-id -[Home tap_UA:]: event id at home.json: Home.ControlEventIDs.tap_UA: is empty",
            ])
    }

    @Test func markerRule() {
        #expect(ConfigCheck.carriesMarker("onFavBtnPressed_UA:"))
        #expect(ConfigCheck.carriesMarker("tap_UA:forEvent:"))
        #expect(ConfigCheck.carriesMarker("refresh_UA"))
        #expect(!ConfigCheck.carriesMarker("onFav_UAPressed:"))
        #expect(!ConfigCheck.carriesMarker("onFavBtnPressed:"))
        let lines = lines([], ["A": ["b_UA", "c:"], "B": ["z_UA:"]])
        #expect(lines == [
            "untracked-marker -[A b_UA]: the action carries the _UA marker, but no configuration tracks it",
            "untracked-marker -[B z_UA:]: the action carries the _UA marker, but no configuration tracks it",
        ])
    }

    @Test func findingsAreSortedDeterministically() {
        let doc = #"{"Zed":{"ControlEventIDs":{"b:":"1","a:":"2"}},"Alpha":{"ControlEventIDs":{"x:":"3"}}}"#
        let first = lines([("f.json", doc)], ["Zed": ["q_UA:"], "Alpha": []])
        #expect(first.map { String($0.prefix(while: { $0 != ":" })) } == ["missing-action -[Alpha x", "missing-action -[Zed a", "missing-action -[Zed b", "untracked-marker -[Zed q_UA"])
        for _ in 0..<5 { #expect(lines([("f.json", doc)], ["Zed": ["q_UA:"], "Alpha": []]) == first) }
    }
}
