import EventModel
import EventStore
import Foundation
import StoreSQL
import Testing
import TestSupport

@testable import PostgresStore

/// The COPY ingest path (`PostgresCopyInsert`, `PostgresConnection.copyIn`) against a real server:
/// text stored byte for byte, duplicates skipped across concurrent collectors, the group insert
/// taking over a group that holds an id already stored.
@Suite(.timeLimit(.minutes(5))) struct PostgresCopyInsertTests {
    /// Texts COPY's text format would have to escape, and some it could not carry at all.
    static let trickyTexts = [
        "tab\there", "new\nline", "carriage\r\nreturn", #"back\slash \N \\ \t"#, "\\", "ünï ✓ 漢字 😀 \u{200B}",
        "\u{FFFF} escape char", "nul \u{0} inside", "'quotes' \"double\" ,;{}[]", " leading and trailing ",
    ]

    static func trickyEvents() -> [JSONValue] {
        let long = String(repeating: "long\tprops\\ ünï\n", count: 40_000)  // ~680 KB
        return trickyTexts.enumerated().map { i, text in
            TestEvents.json(
                "id \(i) \(text)", type: i.isMultiple(of: 2) ? "click" : "page_enter", name: text,
                extra: [
                    ("page", .string(text)), ("path", .string("Root/\(text)/Button")), ("session", .string(text)),
                    ("user", .string("user \(text)")), ("device", .string("device \(text)")),
                    ("props", .object(JSONObject([("k\t\(i)", .string(text)), ("n\\", .int(Int64(i))), ("b", .bool(true))]))),
                ])
        } + [TestEvents.json("long props", extra: [("props", .object(JSONObject([("big", .string(long))])))])]
    }

    @Test func theCopyPathStoresTrickyTextExactlyAsTheGroupInsertDoes() throws {
        let server = try PostgresServer.shared()
        let sent = Self.trickyEvents()
        let invalid: [JSONValue] = [.object(JSONObject([("id", .string("no\ttype\n\\")), ("ts", .int(1))]))]
        var stored: [PostgresIngest: [StoredEvent]] = [:]
        var rows: [PostgresIngest: [String]] = [:]
        for ingest in [PostgresIngest.copy, .groupInsert] {
            let uri = try server.createDatabase()
            let store = try PostgresEventStore(uri: uri, ingest: ingest)
            defer { store.close() }
            let outcome = try store.append(EventBatch(appKey: "app\tkey\\", appVersion: "1.0\n", events: sent + invalid))
            #expect(outcome.stored == sent.count, "\(ingest): \(outcome.rejections.prefix(2))")
            #expect(outcome.rejected == 1, "\(ingest)")
            var events: [StoredEvent] = []
            try store.events(EventQuery()) { events.append($0); return true }
            stored[ingest] = events
            let expected = try sent.map { v throws in try TrackEvent(json: v) }
            #expect(events.count == expected.count)
            for (got, want) in zip(events.map(\.event), expected) { #expect(got == want, "\(ingest)") }
            #expect(events.allSatisfy { $0.appKey == "app\tkey\\" && $0.appVersion == "1.0\n" }, "\(ingest)")
            #expect(try store.rejectedCounts(.all).map(\.count) == [1], "\(ingest)")
            #expect(try store.totals(.all) == StoreTotals(events: sent.count, rejected: 1, duplicates: 0, batches: 1, apps: 1), "\(ingest)")
            // The stored bytes themselves, as psql sees them (not only what our decoding gives back).
            rows[ingest] = try server.psql(
                uri: uri,
                """
                SELECT md5(concat_ws('|', id, ts, type, name, page, path, session, user_id, device_id, props::text,
                                     corrected_ts, app_version)) FROM events ORDER BY seq
                """)
            #expect(try server.psql(uri: uri, "SELECT count(*) FROM events WHERE name = E'tab\\there' OR name = E'new\\nline'") == ["2"])
            #expect(try server.psql(uri: uri, "SELECT count(*) FROM event_ids") == [String(sent.count)])
            #expect(try server.psql(uri: uri, "SELECT count(*) FROM device_links") == [String(Self.trickyTexts.count)])
        }
        #expect(rows[.copy] == rows[.groupInsert])
        #expect(stored[.copy]?.map(\.event) == stored[.groupInsert]?.map(\.event))
    }

    @Test func collectorsCopyingOverlappingBatchesAtOnceStoreEachEventOnce() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        let stores = try (0..<3).map { _ in try PostgresEventStore(uri: uri, ingest: .copy) }
        defer { stores.forEach { $0.close() } }
        let events = (0..<3_000).map { i in TestEvents.json("e-\(i)\t\\\(i % 7)") }
        // Each thread cuts the events into batches of its own size (37 to 251), so a batch meets
        // batches of other threads that hold some of its ids and not others; every event is sent 6 times.
        let outcomes = OutcomeList()
        let sizes = [37, 251, 100, 64, 173, 90]
        let threads = sizes.enumerated().map { t, size in
            Thread {
                let store = stores[t % stores.count]
                outcomes.send(events, inBatchesOf: size, reversed: !t.isMultiple(of: 2), to: store)
            }
        }
        threads.forEach { $0.start() }
        try poll("6 senders", within: 240) { threads.allSatisfy(\.isFinished) }
        #expect(outcomes.failures.isEmpty, "\(outcomes.failures.prefix(3))")
        let batches = sizes.reduce(0) { $0 + (events.count + $1 - 1) / $1 }
        #expect(outcomes.all.count == batches)
        #expect(outcomes.all.reduce(0) { $0 + $1.stored } == events.count)
        #expect(outcomes.all.reduce(0) { $0 + $1.duplicates } == 5 * events.count)
        #expect(try server.psql(uri: uri, "SELECT count(*), count(DISTINCT id) FROM events") == ["3000|3000"])
        #expect(try server.psql(uri: uri, "SELECT count(*) FROM event_ids AS i JOIN events AS e USING (seq, app_key, id)") == ["3000"])
        #expect(try server.psql(uri: uri, "SELECT count(*), sum(stored), sum(duplicates) FROM batches") == ["\(batches)|3000|15000"])
    }

    @Test func aGroupHoldingAnIdAlreadyStoredOrTwiceStoresOnlyTheNewEvents() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        let store = try PostgresEventStore(uri: uri, ingest: .copy)
        defer { store.close() }
        let first = try store.append(EventBatch(appKey: "shop", events: (0..<10).map { TestEvents.json("e\($0)") }))
        #expect(first == BatchOutcome(stored: 10, duplicates: 0))
        // Half already stored: COPY into event_ids is refused, the group insert skips the five.
        let resent = try store.append(EventBatch(appKey: "shop", events: (5..<15).map { TestEvents.json("e\($0)") }))
        #expect(resent == BatchOutcome(stored: 5, duplicates: 5))
        let twice = try store.append(EventBatch(appKey: "shop", events: [TestEvents.json("x"), TestEvents.json("x")]))
        #expect(twice == BatchOutcome(stored: 1, duplicates: 1))
        #expect(try server.psql(uri: uri, "SELECT count(*), count(DISTINCT id), max(seq) > 0 FROM events") == ["16|16|t"])
        #expect(try store.totals(.all) == StoreTotals(events: 16, rejected: 0, duplicates: 6, batches: 3, apps: 1))
    }

    @Test func copyInCarriesRowsAndARefusedCopyLeavesTheConnectionUsable() throws {
        let c = try PostgresConnection(uri: try PostgresServer.shared().createDatabase())
        try c.execute("CREATE TABLE t (n bigint, s text, i int)")
        var data = PostgresBinaryCopy()
        for (n, s) in [(Int64.min, "a\tb\\c\n"), (Int64.max, "")] {
            data.row(3)
            data.int8(n)
            data.text(s)
            data.int4(7)
        }
        data.row(3)
        data.int8(nil)
        data.text(nil)
        data.int4(-1)
        data.end()
        #expect(try c.copyIn("COPY t FROM STDIN (FORMAT binary)", data) == 3)
        #expect(try c.execute("SELECT n::text, s, i::text FROM t ORDER BY n NULLS LAST").rows == [
            [String(Int64.min), "a\tb\\c\n", "7"], [String(Int64.max), "", "7"], [nil, nil, "-1"],
        ])
        // A row with too few fields: the server refuses the COPY, nothing is copied.
        var bad = PostgresBinaryCopy()
        bad.row(2)
        bad.int8(1)
        bad.text("x")
        bad.end()
        #expect(throws: PostgresError.self) { try c.copyIn("COPY t FROM STDIN (FORMAT binary)", bad) }
        #expect(throws: PostgresError.self) { try c.copyIn("SELECT 1", data) }
        #expect(try c.execute("SELECT count(*) FROM t").rows == [["3"]])
        #expect(c.isUsable)
    }
}
