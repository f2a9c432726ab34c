import Analytics
import ATLPClient
import ATLPWire
import Collector
import CommandSupport
import EventModel
import EventStore
import Foundation
@testable import PostgresStore
import SQLiteStore
import Testing
import TestSupport

/// Client-chosen integers at their extremes, on both stores (docs/security.md, "Times and
/// numbers from clients"). Every numeric field of an event and of its batch goes through the
/// collector's handler, then every analysis runs over what was stored, in every format; rows
/// an older build stored unchecked (PostgreSQL holds such rows) go through every analysis and a
/// rollup rebuild too; and the commands' time and count arguments take extreme values. A trap
/// ends the test process, so each test passing is the proof that nothing trapped.
@Suite(.timeLimit(.minutes(10))) struct ExtremeNumberTests {
    enum Backend: String, CaseIterable, Sendable { case sqlite, postgres }

    /// A fresh empty database: its store, and the `--db` text naming it.
    static func database(_ backend: Backend) throws -> (store: any CollectorStore, db: String) {
        switch backend {
        case .sqlite:
            let path = Fixtures.temporaryDirectory("extremes").appendingPathComponent("events.sqlite").path
            return (try SQLiteEventStore(path: path), path)
        case .postgres:
            let uri = try PostgresServer.shared().createDatabase()
            return (try PostgresEventStore(uri: uri), uri)
        }
    }

    /// The edges of 64 bits and of the valid range, and a seeded sample of the rest: half of
    /// any value, half near the range's ends.
    static let values: [Int64] = {
        var g = SeededGenerator(seed: 22)
        let edges: [Int64] = [
            .min, .min + 1, -UTCDay.milliseconds - 1, -1, 0, 1, 999, EventTime.latest, EventTime.latest + 1,
            Int64.max / 2, .max - 1_000, .max - 1, .max,
        ]
        let any = (0..<8).map { _ in Int64(bitPattern: g.next()) }
        let near = (0..<8).map { i in (i % 2 == 0 ? EventTime.earliest : EventTime.latest) + Int64.random(in: -5_000...5_000, using: &g) }
        return edges + any + near
    }()

    /// Runs the tool in process, as `autotrack-collector ARGS...`.
    static func collector(_ args: [String]) -> (code: ExitCode, out: String, err: String) {
        let io = CapturedStreams()
        let code = CollectorCLI.group.main(args, io: io)
        return (code, io.standardOutput, io.standardError)
    }

    /// Every analysis over `db`: `report` in each format (from the rollups where the store has
    /// them, and by a scan), with a funnel and a retention table; `funnel` and `retention` in
    /// each format and with the widest window; `export` in both formats; `tail`.
    static func analyses(_ db: String) -> [[String]] {
        let steps = ["--step", "click:n", "--step", "page_enter:n", "--step", "page_leave:n"]
        var all: [[String]] = []
        for format in ["table", "json", "csv", "html"] {
            for range in [[], ["--since", "1"], ["--since", "0", "--until", String(EventTime.latest + 1)]] {
                all.append(
                    ["report", "--db", db, "--format", format] + range + steps
                        + ["--within", String(EventTime.longestDuration), "--start", "click:n", "--return", "page_enter:n"])
            }
        }
        for format in ["table", "json", "html"] {
            for within in ["0", "1s", "1000000000", "2932896d"] {
                all.append(["funnel", "--db", db, "--app", "shop", "--format", format, "--within", within] + steps)
            }
            for period in ["day", "week"] {
                all.append([
                    "retention", "--db", db, "--app", "shop", "--format", format, "--period", period, "--periods", "1000",
                    "--start", "click:n", "--return", "page_enter:n",
                ])
            }
        }
        all.append(["funnel", "--db", db, "--app", "shop", "--by", "session", "--step", "page_enter:n", "--step", "page_enter:n"])
        all.append(["export", "--db", db])
        all.append(["export", "--db", db, "--format", "csv"])
        all.append(["tail", "--db", db, "--from-start", "--timeout", "0"])
        return all
    }

    /// Runs every analysis and expects each to succeed.
    static func expectEveryAnalysisRuns(_ db: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for args in analyses(db) {
            let r = collector(args)
            #expect(r.code == .success, "\(args.joined(separator: " ")): \(r.err)", sourceLocation: sourceLocation)
            if args.contains("json") {
                #expect((try? JSONValue.parse(r.out)) != nil, "\(args.joined(separator: " ")) wrote no JSON", sourceLocation: sourceLocation)
            }
        }
    }

    /// One batch's events with `v` in every numeric field of an event: a click at `v` beside a
    /// normal one of the same actor and view, an enter at `v`, a leave lasting `v`, props of `v`.
    static func events(_ v: Int64, normal: Int64, ids: inout Int) -> [JSONValue] {
        func event(_ type: String, ts: Int64, _ extra: [(String, JSONValue)] = []) -> JSONValue {
            ids += 1
            let common: [(String, JSONValue)] = [("user", "u1"), ("device", "d1"), ("session", "s1"), ("path", "A&0")]
            return TestEvents.json("e\(ids)", type: type, name: "n", ts: ts, extra: common + extra)
        }
        let props: JSONValue = .object(
            JSONObject([
                ("int", .int(v)), ("double", .double(Double(v))), ("largest", .double(.greatestFiniteMagnitude)),
                ("smallest", .double(-.leastNonzeroMagnitude)), ("title", .int(v)),
            ]))
        return [
            event("click", ts: v), event("click", ts: normal, [("props", props)]), event("click", ts: normal + 500),
            event("page_enter", ts: v, [("page", "Home")]), event("page_enter", ts: normal, [("page", "Cart")]),
            event("page_leave", ts: normal, [("page", "Home"), ("duration", .int(v))]),
            event("page_leave", ts: v, [("page", "Cart"), ("duration", .int(v))]),
            event("custom", ts: normal, [("props", props)]),
        ]
    }

    /// Rules reading each numeric prop of the clicks on `A&0`, so the report's rule coverage
    /// counts their values.
    static let rules: [JSONValue] = ["int", "double", "largest", "smallest", "title"].map { key in
        [
            "id": .string("r-\(key)"), "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick", "viewPath": "A&0",
            "keyPath": .string("model.\(key)"), "keyName": .string(key),
        ]
    }

    /// True when the collector must reject `event`: a time or duration outside the valid ranges.
    static func outOfRange(_ event: JSONValue) -> Bool {
        guard case .object(let o) = event, case .int(let ts) = o["ts"] else { return false }
        if !EventTime.range.contains(ts) { return true }
        if case .int(let d) = o["duration"], !EventTime.durations.contains(d) { return true }
        return false
    }

    @Test(arguments: Backend.allCases)
    func everyNumericFieldAtItsExtremesIsStoredOrRejectedAndEveryAnalysisRuns(_ backend: Backend) throws {
        let (store, db) = try Self.database(backend)
        defer { store.close() }
        let handler = CollectorHandler(store: store)
        let client = ConnectedClient(connectionID: 1, peer: "test", hello: Hello(appKey: "shop", appVersion: "1.0"), isAdmin: false)
        let admin = ConnectedClient(connectionID: 0, peer: "test", hello: Hello(appKey: "shop"), isAdmin: true)
        #expect(handler.handle(.publish(rules: Self.rules, sampleRate: nil), client: admin) == .published(stored: Self.rules.count))
        var ids = 0
        var rejected = 0
        for (i, v) in Self.values.enumerated() {
            let normal = TestEvents.time + Int64(i) * 60_000
            // The same events with `v` as the batch's `sentAt`, with a normal `sentAt`, and without.
            for (b, sentAt) in [v, normal - 5_000, nil].enumerated() {
                let events = Self.events(v, normal: normal, ids: &ids)
                let label: JSONValue = b == 0 ? .int(v) : .string("b-\(v)-\(b)")
                let reply = handler.handle(.events(batch: label, events: events, sentAt: sentAt), client: client)
                let refused = events.filter(Self.outOfRange).count
                rejected += refused
                #expect(reply == .ack(batch: label, stored: events.count - refused, duplicates: 0, rejected: refused), "v = \(v)")
            }
        }
        #expect(try store.totals(.all).rejected == rejected)
        #expect(try store.rejectedCounts(.all).allSatisfy { $0.reason.hasPrefix("ts must be from 0") || $0.reason.hasPrefix("duration must be from 0") })
        for e in try StoreConformance.stored(store) {
            #expect(EventTime.range.contains(e.time) && EventTime.range.contains(e.event.ts), "\(e)")
            #expect(e.event.duration.map(EventTime.durations.contains) ?? true, "\(e)")
        }
        Self.expectEveryAnalysisRuns(db)
        // The rules' coverage counted every numeric prop's values (one click per batch carries them).
        let report = try JSONValue.parse(Self.collector(["report", "--db", db, "--format", "json"]).out)
        let coverage = report.objectValue?["rules"]?.arrayValue ?? []
        #expect(coverage.count == Self.rules.count)
        for rule in coverage {
            let counts = (rule.objectValue?["values"]?.arrayValue ?? []).compactMap { $0.objectValue?["count"]?.intValue }
            #expect(counts.reduce(0, +) == Int64(Self.values.count * 3), "\(rule.jsonText)")
        }
    }

    /// Rows of every extreme written straight into the tables, as a build without the checks
    /// stored them: the SQLite store rebuilds its rollups over them, new events join them, and
    /// every analysis runs.
    @Test(arguments: Backend.allCases)
    func rowsAnOlderBuildStoredUncheckedStopNeitherIngestNorAnalysis(_ backend: Backend) throws {
        let (store, db) = try Self.database(backend)
        defer { store.close() }
        var rows: [String] = []
        for (i, v) in Self.values.enumerated() {
            for (type, page, duration) in [("click", "NULL", "NULL"), ("page_enter", "'Home'", "NULL"), ("page_leave", "'Home'", String(v))] {
                rows.append(
                    "('shop', 'old-\(i)-\(type)', \(v), '\(type)', 'n', \(page), 'A&0', 's1', 'u1', 'd1', \(duration), '{}', '1.0', 0, \(v))")
            }
        }
        // Two leaves of a page lasting Int64.max each, on two days: a mean dwell of 2^63 ms, and
        // a sum of the days' dwell past 64 bits.
        for day in 0..<2 {
            let ts = TestEvents.time + Int64(day) * UTCDay.milliseconds
            rows.append("('shop', 'old-big-\(day)', \(ts), 'page_leave', 'n', 'Big', NULL, 's1', 'u1', 'd1', \(Int64.max), '{}', '1.0', 0, \(ts))")
        }
        let insert = """
            INSERT INTO events (app_key, id, ts, type, name, page, path, session, user_id, device_id, duration, props, app_version,
                                received_at, corrected_ts)
            VALUES \(rows.joined(separator: ", "))
            """
        switch backend {
        case .sqlite:
            _ = try sqlite(db, insert + "; INSERT INTO rollup_backlog (app_key, next_seq) VALUES ('shop', 0); INSERT INTO rollup_pages_backlog VALUES ('shop', 0);")
            try store.rebuildRollups { _ in }
        case .postgres:
            // Under the ingest lock, as every group insert: the builder's watermark waits for it.
            try PostgresServer.shared().psql(uri: db, "SELECT pg_advisory_xact_lock_shared(\(PostgresRollups.ingestLock)); " + insert)
            // The rollups take them in too (a step that failed would throw here).
            try store.rebuildRollups { _ in }
            #expect(try store.activity(.all) == (try store.scannedActivity(.all)))
        }
        #expect(try store.totals(.all).events == rows.count)
        // New events beside the old ones: the same actor, view, session and page.
        let handler = CollectorHandler(store: store)
        let client = ConnectedClient(connectionID: 1, peer: "test", hello: Hello(appKey: "shop", appVersion: "1.0"), isAdmin: false)
        var ids = 0
        let events = Self.events(TestEvents.time, normal: TestEvents.time + 1_000, ids: &ids)
        let reply = handler.handle(.events(batch: 1, events: events, sentAt: nil), client: client)
        #expect(reply == .ack(batch: 1, stored: events.count, duplicates: 0, rejected: 0))
        Self.expectEveryAnalysisRuns(db)
    }

    /// The commands' time, duration and count arguments at every extreme: each run either
    /// succeeds or is a usage error that says why, never a trap.
    @Test func extremeArgumentsAreUsedOrRefusedWithTheReason() throws {
        let (store, db) = try Self.database(.sqlite)
        var ids = 0
        _ = try store.append(EventBatch(appKey: "shop", appVersion: "1.0", events: Self.events(TestEvents.time, normal: TestEvents.time, ids: &ids)))
        store.close()
        let steps = ["--step", "click:n", "--step", "page_enter:n"]
        let retention = ["--start", "click:n", "--return", "page_enter:n"]
        for v in Self.values {
            let text = String(v)
            var runs: [(args: [String], valid: Bool)] = [
                (["report", "--db", db, "--format", "json", "--since", text], EventTime.range.contains(v)),
                (["report", "--db", db, "--format", "json", "--until", text], (0...EventTime.latest + 1).contains(v)),
                (["export", "--db", db, "--since", text], EventTime.range.contains(v)),
                (["funnel", "--db", db, "--app", "shop", "--within", text] + steps, EventTime.durations.contains(v)),
                (["retention", "--db", db, "--app", "shop", "--until", text] + retention, (0...EventTime.latest + 1).contains(v)),
                (["retention", "--db", db, "--app", "shop", "--periods", text] + retention, (1...1000).contains(v)),
                (["tail", "--db", db, "--from-start", "--timeout", "0", "--limit", text], v >= 1),
                (["tail", "--db", db, "--from-start", "--timeout", "0", "--interval", text], (10...60_000).contains(v)),
            ]
            for unit in ["ms", "s", "m", "h", "d"] where v >= 0 {
                let (ms, overflow) = v.multipliedReportingOverflow(by: ["ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000][unit]!)
                runs.append((["funnel", "--db", db, "--app", "shop", "--within", text + unit] + steps, !overflow && EventTime.durations.contains(ms)))
            }
            for (args, valid) in runs {
                let r = Self.collector(args)
                #expect(r.code == (valid ? .success : .usage), "\(args.joined(separator: " ")): \(r.err)")
                if !valid { #expect(!r.err.isEmpty) }
            }
        }
        // A time or window past the range says which range.
        let late = Self.collector(["report", "--db", db, "--since", String(EventTime.latest + 1)])
        #expect(late.err.contains("1970-01-01T00:00:00Z") && late.err.contains("9999-12-31T23:59:59.999Z"), "\(late.err)")
        let long = Self.collector(["funnel", "--db", db, "--app", "shop", "--within", "1000000000d"] + steps)
        #expect(long.err.contains(String(EventTime.longestDuration)), "\(long.err)")
    }

    /// Numbers as a client's JSON text writes them, past 64 bits and past a double included, in
    /// the batch id, `sentAt`, `ts` and `duration` of `EVENTS` frames sent to a running
    /// collector: each frame is acknowledged (its bad events rejected) or refused as
    /// `bad-request`, the connection stays open, and the collector goes on serving.
    @Test(arguments: Backend.allCases)
    func numbersPastSixtyFourBitsOnTheWireAreAnsweredAndTheCollectorGoesOn(_ backend: Backend) throws {
        let (store, db) = try Self.database(backend)
        store.close()
        let collector = EmbeddedCollector(dbPath: db)
        let address = try collector.start()
        defer { collector.stop() }
        let c = try ATLPConnection(to: address, timeout: .seconds(30))
        defer { c.close() }
        _ = try c.hello(Hello(appKey: "shop", appVersion: "1.0"))
        let numbers = [
            "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
            "99999999999999999999999", "1e400", "-1e400", "1e18", "-0", "0.5", "253402300799999", "253402300800000",
        ]
        var n = 0
        for number in numbers {
            for field in ["batch", "sentAt", "ts", "duration"] {
                n += 1
                let batch = field == "batch" ? number : "\(n)"
                let sentAt = field == "sentAt" ? #","sentAt":\#(number)"# : ""
                let ts = field == "ts" ? number : String(TestEvents.time)
                let duration = field == "duration" ? #","duration":\#(number)"# : ""
                let event = #"{"id":"w\#(n)","ts":\#(ts),"type":"page_leave","name":"n","user":"u1"\#(duration)}"#
                let payload = #"EVENTS {"batch":\#(batch)\#(sentAt),"events":[\#(event)]}"#
                try c.sendBytes(Array("\(payload.utf8.count) \(payload)".utf8))
                let answer = try c.receive()
                let code = answer.body?["code"]?.stringValue
                #expect(answer.verb == "ACK" || code == "bad-request", "\(payload): \(answer.verb) \(answer.body.map { JSONValue.object($0).jsonText } ?? "")")
                try c.ping()
            }
        }
        let totals = try #require(collector.store).totals(.all)
        #expect(totals.events + totals.rejected > 0)
        Self.expectEveryAnalysisRuns(db)
    }
}
