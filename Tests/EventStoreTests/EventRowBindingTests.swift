import EventModel
import EventStore
import Foundation
import SQLiteStore
import Testing
import TestSupport

/// The event rows of a batch are bound from one buffer of text (`SQLiteValueBuffer`) in INSERTs
/// of up to 32 rows: every value comes back as sent, NULL stays NULL, an empty text stays '',
/// a U+0000 inside a text is kept, and a repeat across two INSERTs of one batch is a duplicate.
@Suite struct EventRowBindingTests {
    @Test(.timeLimit(.minutes(3))) func aBatchOverSeveralInsertsComesBackValueForValue() throws {
        let path = Fixtures.temporaryDirectory("event-row-binding").appendingPathComponent("events.sqlite").path
        let store = try SQLiteEventStore(path: path)
        var sent: [TrackEvent] = []
        var values: [JSONValue] = []
        for i in 0..<70 {
            let event = TrackEvent(
                id: "e\(i)", ts: 1_700_000_000_000 + Int64(i), type: i % 2 == 0 ? .click : .pageLeave,
                name: i == 3 ? "a\u{0}b é 😀" : "n\(i)", page: i == 1 ? "" : i % 3 == 0 ? nil : "p\(i)",
                path: i % 5 == 0 ? "w/x[\(i)]" : nil, viewId: nil, session: "s\(i / 10)",
                user: i % 4 == 0 ? "u\(i)" : nil, device: i % 7 == 0 ? nil : "d\(i % 3)",
                duration: i % 2 == 0 ? nil : Int64(i), props: JSONObject([("k", .string("v\(i)\u{0}")), ("n", .int(Int64(i)))]))
            sent.append(event)
            values.append(event.json)
            if i == 10 || i == 50 { values.append(.string("not an event \(i)")) }
        }
        // e5 again, in the second INSERT of 32 rows: counted, not stored.
        values.insert(sent[5].json, at: 40)
        let outcome = try store.append(EventBatch(appKey: "shop", label: "1", events: values))
        #expect(outcome.stored == 70)
        #expect(outcome.duplicates == 1)
        #expect(outcome.rejected == 2)
        var stored: [StoredEvent] = []
        try store.events(EventQuery()) { stored.append($0); return true }
        store.close()
        #expect(stored.map(\.event) == sent)
        #expect(stored.allSatisfy { $0.appKey == "shop" && $0.appVersion == nil && $0.time == $0.event.ts })
        #expect(try sqlite(path, "SELECT quote(page), hex(name) FROM events WHERE id IN ('e1', 'e3') ORDER BY id") == [
            "''|6E31", "NULL|61006220C3A920F09F9880",
        ])
        #expect(try sqlite(path, "SELECT quote(app_version), quote(view_id), count(*) FROM events") == ["NULL|NULL|70"])
    }
}
