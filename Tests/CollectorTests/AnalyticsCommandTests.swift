import Collector
import CommandSupport
import EventModel
import EventStore
import Foundation
import SQLiteStore
import SystemCalls
import TestSupport
import Testing

/// The analytics commands through the CLI: exact JSON shapes, filters, export and tail.
@Suite struct AnalyticsCommandTests {
    /// 2026-11-01T00:00:00Z.
    static let day0: Int64 = 1_793_491_200_000

    static func event(_ id: String, _ type: EventType, _ name: String, at ts: Int64, user: String? = nil, device: String? = nil) -> JSONValue {
        TestEvents.event(id, type: type, name: name, ts: ts, session: "s-\(user ?? device ?? "none")", user: user, device: device).json
    }

    /// ann: start → view → buy within a minute on day 0, back on day 1; ben: start and view on
    /// day 0 only; an event of another app; one of version 2.0.
    static func database() throws -> SQLiteEventStore {
        let path = Fixtures.temporaryDirectory("analytics-cli").appendingPathComponent("events.sqlite").path
        let store = try SQLiteEventStore(path: path)
        let t = day0
        _ = try store.append(
            EventBatch(
                appKey: "shop", appVersion: "1.0",
                events: [
                    event("1", .appStart, "launch", at: t, user: "ann"),
                    event("2", .pageEnter, "Home", at: t + 10_000, user: "ann"),
                    event("3", .click, "BUY", at: t + 20_000, user: "ann"),
                    event("4", .appStart, "launch", at: t + 86_400_000, user: "ann"),
                    event("5", .appStart, "launch", at: t + 5_000, device: "d-ben"),
                    event("6", .pageEnter, "Home", at: t + 6_000, device: "d-ben"),
                ]))
        _ = try store.append(EventBatch(appKey: "news", appVersion: "1.0", events: [event("1", .appStart, "launch", at: t, user: "zed")]))
        _ = try store.append(EventBatch(appKey: "shop", appVersion: "2.0", events: [event("7", .appStart, "launch", at: t, user: "cy")]))
        return store
    }

    @Test func funnelJSONHasTheIssuesShape() throws {
        let store = try Self.database()
        let r = collector(
            "funnel", "--db", store.path, "--app", "shop", "--step", "app_start:launch", "--step", "page_enter:Home", "--step", "click:BUY",
            "--format", "json")
        #expect(r.code == .success, "\(r.err)")
        #expect(
            r.out == #"{"by":"user","withinMs":3600000,"steps":[{"step":"app_start:launch","actors":3,"conversion":1},"#
                + #"{"step":"page_enter:Home","actors":2,"conversion":0.6666666666666666},{"step":"click:BUY","actors":1,"conversion":0.3333333333333333}]}"#
                + "\n")
        // The version filter keeps cy out; a 15 s window drops ann's BUY (20 s after launch).
        let narrow = collector(
            "funnel", "--db", store.path, "--app", "shop", "--version", "1.0", "--within", "15s", "--by", "session", "--step", "app_start:launch",
            "--step", "page_enter:Home", "--step", "click:BUY", "--format", "json")
        #expect(
            narrow.out == #"{"by":"session","withinMs":15000,"steps":[{"step":"app_start:launch","actors":2,"conversion":1},"#
                + #"{"step":"page_enter:Home","actors":2,"conversion":1},{"step":"click:BUY","actors":0,"conversion":0}]}"# + "\n")
        let table = collector("funnel", "--db", store.path, "--app", "shop", "--step", "app_start:launch", "--step", "click:BUY")
        #expect(table.out.contains("click:BUY"))
        #expect(table.out.contains("33.3%"))
    }

    @Test func retentionJSONHasTheIssuesShape() throws {
        let store = try Self.database()
        let r = collector(
            "retention", "--db", store.path, "--app", "shop", "--start", "app_start:launch", "--return", "app_start:launch", "--periods", "3",
            "--format", "json")
        #expect(r.code == .success, "\(r.err)")
        #expect(r.out == #"{"period":"day","cohorts":[{"cohort":"2026-11-01","actors":3,"returned":[3,1,0]}]}"# + "\n")
        let since = collector(
            "retention", "--db", store.path, "--app", "shop", "--since", "2026-11-01T00:00:05Z", "--until", "1793577600001",
            "--start", "app_start:launch", "--return", "page_enter:Home", "--period", "week", "--periods", "1", "--format", "json")
        // From 00:00:05: ann's first launch in range is on day 1 (week of 11-02); ben's at 00:00:05 (week of 10-26).
        #expect(
            since.out == #"{"period":"week","cohorts":[{"cohort":"2026-10-26","actors":1,"returned":[1]},"#
                + #"{"cohort":"2026-11-02","actors":1,"returned":[0]}]}"# + "\n")
    }

    @Test func exportWritesLinesTheAgentAcceptsAndCSV() throws {
        let store = try Self.database()
        let r = collector("export", "--db", store.path, "--app", "shop", "--type", "app_start", "--until", "2026-11-02")
        #expect(r.code == .success, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let events = try lines.map { try TrackEvent(json: try JSONValue.parse(String($0))) }
        #expect(events.map(\.id) == ["1", "5", "7"])
        #expect(events[0].json == Self.event("1", .appStart, "launch", at: Self.day0, user: "ann"))
        let csv = collector("export", "--db", store.path, "--format", "csv", "--app", "news")
        let rows = csv.out.components(separatedBy: "\r\n")
        #expect(rows[0] == ExportCommand.csvHeader.joined(separator: ","))
        #expect(rows[1].hasPrefix("7,news,1.0,1,\(Self.day0),\(Self.day0),app_start,launch,,,,s-zed,zed,,,{}"))
        #expect(rows.count == 3 && rows[2].isEmpty)
    }

    @Test func tailPrintsEventsStoredWhileItRuns() throws {
        let store = try Self.database()
        let io = CapturedStreams()
        let done = DispatchSemaphore(value: 0)
        let path = store.path
        let thread = Thread {
            _ = CollectorCLI.group.main(
                ["tail", "--db", path, "--app", "shop", "--type", "click", "--from-start", "--limit", "2", "--timeout", "60", "--interval", "20"],
                io: io)
            done.signal()
        }
        thread.start()
        // The stored click comes first; then one more, stored while tail waits.
        var waited = 0
        while !io.standardOutput.contains("\"id\":\"3\""), waited < 3000 {
            Posix.sleep(.milliseconds(10))
            waited += 1
        }
        _ = try store.append(
            EventBatch(appKey: "shop", events: [Self.event("8", .pageEnter, "Home", at: Self.day0), Self.event("9", .click, "BUY", at: Self.day0)]))
        #expect(done.wait(timeout: .now() + 60) == .success)
        let ids = try io.standardOutput.split(separator: "\n").map { try TrackEvent(json: try JSONValue.parse(String($0))).id }
        #expect(ids == ["3", "9"])
    }

    @Test func tailStopsAtItsTimeoutWithNothingNew() throws {
        let store = try Self.database()
        let r = collector("tail", "--db", store.path, "--timeout", "0.2", "--interval", "50")
        #expect(r.code == .success)
        #expect(r.out.isEmpty)
    }

    @Test func reportTakesFiltersAndShowsTheNewSections() throws {
        let store = try Self.database()
        let r = collector(
            "report", "--db", store.path, "--app", "shop", "--version", "1.0", "--format", "json", "--step", "app_start:launch", "--step",
            "click:BUY", "--start", "app_start:launch", "--return", "page_enter:Home", "--periods", "2")
        #expect(r.code == .success, "\(r.err)")
        let json = try JSONValue.parse(r.out)
        #expect(json["totals"]?["events"] == 6)
        #expect(json["filter"] == ["app": "shop", "version": "1.0", "since": nil, "until": nil])
        #expect(json["days"]?.arrayValue?.first == ["day": "2026-11-01", "events": 5, "actors": 2, "devices": 1, "sessions": 2])
        #expect(json["funnel"]?["steps"]?.arrayValue?.last?["actors"] == 1)
        #expect(json["retention"] == ["period": "day", "cohorts": [["cohort": "2026-11-01", "actors": 2, "returned": [2, 0]]]])
        let table = collector("report", "--db", store.path, "--since", "2026-11-02")
        #expect(table.out.contains("filters: since 2026-11-02T00:00:00Z"))
        #expect(table.out.contains("events 1 "))
    }

    @Test(arguments: [
        (["funnel", "--app", "shop", "--step", "click:A"], "at least two --step"),
        (["funnel", "--step", "click:A", "--step", "click:B"], "missing required option --app"),
        (["funnel", "--app", "k", "--step", "tap:A", "--step", "click:B"], "'tap' is not an event type"),
        (["funnel", "--app", "k", "--step", "clickA", "--step", "click:B"], "is not TYPE:NAME"),
        (["funnel", "--app", "k", "--step", "click:A", "--step", "click:B", "--within", "soon"], "--within 'soon' is not a duration"),
        (["funnel", "--app", "k", "--step", "click:A", "--step", "click:B", "--by", "team"], "--by 'team' is not one of"),
        (["retention", "--app", "k", "--start", "click:A"], "missing --return"),
        (["retention", "--app", "k", "--start", "click:A", "--return", "click:A", "--by", "session"], "is not one of user, device"),
        (["retention", "--app", "k", "--start", "click:A", "--return", "click:A", "--period", "month"], "is not day or week"),
        (["export", "--since", "yesterday"], "--since 'yesterday' is not a time"),
        (["export", "--since", "2026-11-02", "--until", "2026-11-01"], "--until must be after --since"),
        (["export", "--type", "tap"], "--type 'tap' is not an event type"),
        (["export", "--format", "xml"], "is not ndjson or csv"),
        (["tail", "--interval", "1"], "--interval takes a whole number"),
        (["report", "--within", "1h"], "--within and --by need --step"),
    ])
    func badAnalyticsArgumentsExitTwo(args: [String], message: String) {
        let io = CapturedStreams()
        #expect(CollectorCLI.group.main(args, io: io) == .usage)
        #expect(io.standardError.contains(message), "stderr: \(io.standardError)")
    }

    /// Each new command's help example (its `autotrack-collector` line), run as printed against a
    /// database of known content at the path it names.
    @Test(arguments: ([FunnelCommand.self, RetentionCommand.self, ExportCommand.self, TailCommand.self] as [any Command.Type]).map {
        CollectorCLI.group.help(of: $0)
    })
    func helpExamplesRunAsPrinted(help: String) throws {
        let store = try Self.database()
        let example = try #require(help.components(separatedBy: "EXAMPLES:\n").last)
            .replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix("autotrack-collector ") } ?? ""
        var words = example.split(separator: " ").map(String.init)
        #expect(words.first == "autotrack-collector")
        if let redirect = words.firstIndex(of: ">") { words.removeSubrange(redirect...) }
        words = words.dropFirst().map { $0 == "autotrack.sqlite" ? store.path : $0 }
        let io = CapturedStreams()
        #expect(CollectorCLI.group.main(words, io: io) == .success, "\(words): \(io.standardError)")
    }

    @Test func aMissingDatabaseIsAnErrorNotAnEmptyAnswer() {
        let r = collector("funnel", "--db", "/nonexistent/x.sqlite", "--app", "k", "--step", "click:A", "--step", "click:B")
        #expect(r.code == .failure)
        #expect(r.err.contains("no database at /nonexistent/x.sqlite"))
    }
}
