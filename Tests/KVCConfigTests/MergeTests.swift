import EventModel
import Testing

@testable import KVCConfig

@Suite struct MergeTests {
    static let ruleA = #"{"rules":[{"id":"dup","appKey":"a","appVersion":"*","viewEvent":"ButtonClick","viewPath":"A&0","keyPath":"x","keyName":"k"}]}"#

    func conflicts(_ files: [String: String], order: [String]) -> [ConfigProblem] {
        let dir = Fixture.directory(files)
        return TrackingPlan.read(files: order.map { dir + "/" + $0 }).problems
    }

    @Test func sameActionTwoEventIDsNamesBothPlaces() throws {
        let a = #"{"Home":{"ControlEventIDs":{"onFavBtnPressed:":"FAV_A"}}}"#
        let b = #"{"Home":{"ControlEventIDs":{"onFavBtnPressed:":"FAV_B"}}}"#
        for (format, bText) in try Formats.both(b) {
            let dir = Fixture.directory(["a.json": a, "b.\(format)": bText])
            do {
                _ = try TrackingPlan.load(files: [dir + "/a.json", dir + "/b.\(format)"])
                Issue.record("loaded")
            } catch {
                let p = try #require(error.problems.first)
                #expect(error.problems.count == 1)
                #expect(p.code == .conflict)
                #expect(p.location == ConfigLocation(file: dir + "/b.\(format)", keyPath: "Home.ControlEventIDs.onFavBtnPressed:"))
                #expect(p.otherLocation == ConfigLocation(file: dir + "/a.json", keyPath: "Home.ControlEventIDs.onFavBtnPressed:"))
                #expect(p.description.contains("expected one event id for -[Home onFavBtnPressed:]"))
                #expect(p.description.contains("found \"FAV_B\" here and \"FAV_A\""))
                #expect(p.description.contains("the other is at \(dir)/a.json: Home.ControlEventIDs.onFavBtnPressed:"))
            }
        }
    }

    @Test func samePageEnterTwoIDs() throws {
        let ps = conflicts(
            ["a.json": #"{"Home":{"PageEventIDs":{"Enter":"E1","Leave":"L"}}}"#, "b.json": #"{"Home":{"PageEventIDs":{"Enter":"E2","Leave":"L"}}}"#],
            order: ["a.json", "b.json"])
        #expect(ps.count == 1)  // The same Leave id twice is no conflict.
        #expect(ps.first?.code == .conflict)
        #expect(ps.first?.location.keyPath == "Home.PageEventIDs.Enter")
        #expect(ps.first?.otherLocation?.keyPath == "Home.PageEventIDs.Enter")
        #expect(ps.first?.expected == "one page Enter event id for Home")
    }

    @Test func repeatedRuleIDAcrossFormats() throws {
        for (format, text) in try Formats.both(Self.ruleA) {
            let ps = conflicts(["a.json": Self.ruleA, "b.\(format)": text], order: ["a.json", "b.\(format)"])
            #expect(ps.count == 1)
            #expect(ps.first?.location.keyPath == "rules[0].id")
            #expect(ps.first?.location.file.hasSuffix("b.\(format)") == true)
            #expect(ps.first?.otherLocation?.file.hasSuffix("a.json") == true)
            #expect(ps.first?.otherLocation?.keyPath == "rules[0].id")
        }
    }

    @Test func labelsConflictOnlyWhenDifferent() {
        let a = #"{"trackedScreens":[{"class":"S","label":"Main"}],"trackedEvents":[{"class":"S","selector":"go:","label":"Go"}]}"#
        let same = conflicts(["a.json": a, "b.json": a], order: ["a.json", "b.json"])
        #expect(same.isEmpty)
        let b = #"{"trackedScreens":[{"class":"S","label":"Home"}],"trackedEvents":[{"class":"S","selector":"go:","label":"Went"}]}"#
        let ps = conflicts(["a.json": a, "b.json": b], order: ["a.json", "b.json"])
        #expect(ps.map(\.location.keyPath) == ["trackedScreens[0]", "trackedEvents[0]"])
        #expect(ps.map(\.code) == [.conflict, .conflict])
        #expect(ps[1].action == "go:")
    }

    @Test func identicalEntriesInTwoFilesMergeQuietly() throws {
        let a = #"{"Home":{"PageEventIDs":{"Enter":"E"},"ControlEventIDs":{"tap:":"T"}}}"#
        let dir = Fixture.directory(["a.json": a, "b.json": a])
        let plan = try TrackingPlan.load(files: [dir + "/a.json", dir + "/b.json"])
        #expect(plan.eventTable["Home"]?.controlEvents == ["tap:": "T"])
        #expect(plan.eventTable["Home"]?.locations["tap:"]?.file == dir + "/a.json", "the first place is kept")
    }

    @Test func mergingPlansInMemory() throws {
        let a = try ConfigLoader.parse(text: #"{"Home":{"ControlEventIDs":{"tap:":"T"}}}"#, file: "a")
        let b = try ConfigLoader.parse(text: Self.ruleA, file: "b")
        var merged = try a.merging(b)
        #expect(merged.rules.count == 1 && merged.eventTable["Home"]?.controlEvents["tap:"] == "T")
        let before = merged
        do {
            try merged.merge(try ConfigLoader.parse(text: Self.ruleA, file: "c"))
            Issue.record("merged a repeated rule id")
        } catch {
            #expect(error.problems.first?.location == ConfigLocation(file: "c", keyPath: "rules[0].id"))
            #expect(error.problems.first?.otherLocation == ConfigLocation(file: "b", keyPath: "rules[0].id"))
        }
        #expect(merged == before, "a failed merge changes nothing")
    }

    @Test func unreadableFilesAreProblemsToo() {
        let dir = Fixture.directory(["a.json": "{}"])
        let ps = TrackingPlan.read(files: [dir + "/missing.json", dir]).problems
        #expect(ps.map(\.code) == [.unreadableFile, .unreadableFile])
        #expect(ps[0].description == "\(dir)/missing.json: expected a readable file, found no such file")
        #expect(ps[1].found == "a directory")
    }
}

@Suite struct RepeatedJSONKeyTests {
    @Test func aClassGivenTwiceInOneJSONFileIsAConflict() throws {
        let text = """
            {
              "Home": {"ControlEventIDs": {"tap:": "A"}},
              "Home": {"ControlEventIDs": {"tap:": "B", "t\\u0061p:": "C"}}
            }
            """
        let r = ConfigLoader.read(data: Array(text.utf8), file: "e.json")
        #expect(r.problems.count == 2, "\(r.problems)")
        let first = try #require(r.problems.first)
        #expect(first.code == .conflict)
        #expect(first.location == ConfigLocation(file: "e.json", keyPath: "Home", line: 3, column: 3))
        #expect(first.otherLocation == ConfigLocation(file: "e.json", keyPath: "Home", line: 2, column: 3))
        #expect(first.description == "e.json:3:3: Home: expected each key once in an object, found \"Home\" again; the other is at e.json:2:3: Home")
        // An escaped spelling of the same key is the same key.
        #expect(r.problems[1].location.keyPath == "Home.ControlEventIDs.tap:")
        #expect(r.problems[1].location.column == 45)
        #expect(throws: ConfigError.self) { try ConfigLoader.parse(text: text, file: "e.json") }
    }

    @Test func sameKeyInDifferentObjectsIsFine() throws {
        let text = #"{"A":{"ControlEventIDs":{"x:":"1"}},"B":{"ControlEventIDs":{"x:":"1"}},"C":{"PageEventIDs":{"Enter":"é\"}"}}}"#
        #expect(ConfigLoader.read(data: Array(text.utf8), file: "f").problems.isEmpty)
        let rules = #"{"rules":[{"id":"a","appKey":"k","appVersion":"*","viewEvent":"ViewTap","viewPath":"A&0","keyPath":"x","keyName":"x"},{"id":"b","appKey":"k","appVersion":"*","viewEvent":"ViewTap","viewPath":"A&0","keyPath":"x","keyName":"x"}]}"#
        #expect(ConfigLoader.read(data: Array(rules.utf8), file: "f").problems.isEmpty)
    }
}
