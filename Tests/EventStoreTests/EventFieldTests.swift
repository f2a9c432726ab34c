import EventModel
import EventStore
import Foundation
import SQLiteStore
import Testing
import TestSupport

/// Every event field reaches its column exactly: strings with U+0000, numbers JSON cannot
/// write back, who (`user`, `device`) and when (`ts` as sent, the corrected time).
@Suite struct EventFieldTests {
    /// The stored events, streamed back through the protocol.
    func stored(_ store: some CollectorStore, _ query: EventQuery = EventQuery()) throws -> [StoredEvent] {
        var all: [StoredEvent] = []
        try store.events(query) { all.append($0); return true }
        return all
    }

    @Test func idsThatDifferAfterANULAreTwoEventsStoredExactly() throws {
        let store = try SQLiteEventStore(path: temporaryDatabase("nul"))
        let a = "ord-1\u{0}a", b = "ord-1\u{0}b"
        let outcome = try store.append(EventBatch(appKey: "shop", events: [event(a, name: "buy\u{0}now"), event(b)]))
        #expect(outcome == BatchOutcome(stored: 2, duplicates: 0, rejected: 0))
        let events = try stored(store)
        #expect(events.map(\.event.id) == [a, b])
        #expect(events.first?.event.name == "buy\u{0}now")
        // The same id again is a duplicate, compared byte for byte.
        #expect(try store.append(EventBatch(appKey: "shop", events: [event(a)])) == BatchOutcome(stored: 0, duplicates: 1, rejected: 0))
        // Rule JSON (text with an escaped NUL in it once written) survives too.
        #expect(try store.publish([StoredRule(appKey: "shop", id: "r\u{0}1", json: "{}")], sampleRate: 1) == 1)
        #expect(try store.rules(appKey: "shop").map(\.id) == ["r\u{0}1"])
    }

    @Test func aNumberBeyondADoubleIsRejectedNotStoredAsNull() throws {
        let store = try SQLiteEventStore(path: temporaryDatabase("big"))
        let raw = try JSONValue.parse(#"{"id":"x","ts":1,"type":"click","name":"n","props":{"price":1e999}}"#)
        let outcome = try store.append(EventBatch(appKey: "shop", events: [raw, event("ok", extra: [("props", ["price": 1e300])])]))
        #expect(outcome.stored == 1)
        #expect(outcome.rejections == ["props.price is a number too large for a 64-bit float; send it as a string"])
        #expect(try stored(store).map { $0.event.props["price"] } == [.double(1e300)])
    }

    @Test func userAndDeviceAreColumnsAndLimitedTo128Bytes() throws {
        let path = temporaryDatabase("who")
        let store = try SQLiteEventStore(path: path)
        let long = String(repeating: "u", count: 129)
        let outcome = try store.append(
            EventBatch(
                appKey: "shop",
                events: [
                    event("a", extra: [("user", "alice"), ("device", "d-1"), ("session", "s-1")]),
                    event("b", extra: [("user", .string(long))]), event("c", extra: [("device", 7)]),
                ]))
        #expect(outcome.stored == 1)
        #expect(outcome.rejections == ["user must be at most 128 bytes, found 129", "device must be a string, found a number"])
        #expect(try sqlite(path, "SELECT user_id, device_id, session FROM events") == ["alice|d-1|s-1"])
        let e = try #require(try stored(store).first)
        #expect((e.event.user, e.event.device, e.event.session) == ("alice", "d-1", "s-1"))
    }

    @Test func theCorrectedTimeAddsTheClientsClockErrorAndReportsFilterByIt() throws {
        let path = temporaryDatabase("time")
        let store = try SQLiteEventStore(path: path)
        // A client whose clock is far behind: it stamped the event 500 ms before it sent it at its 1,000.
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        _ = try store.append(EventBatch(appKey: "shop", sentAt: 1_000, events: [event("late", extra: [("ts", 500)])]))
        let after = Int64(Date().timeIntervalSince1970 * 1000) + 1
        _ = try store.append(EventBatch(appKey: "shop", events: [event("plain", extra: [("ts", 2_000)])]))
        let events = try stored(store)
        #expect(events.map(\.event.ts) == [500, 2_000])  // ts as sent
        #expect((before - 500)...(after - 500) ~= events[0].time)
        #expect(events[1].time == 2_000)  // no sentAt: ts
        #expect(try sqlite(path, "SELECT COALESCE(sent_at, 'none') FROM batches ORDER BY seq") == ["1000", "none"])
        // Filters and reports use the corrected time.
        #expect(try store.totals(EventFilter(since: before - 500)).events == 1)
        #expect(try store.eventCounts(EventFilter(until: 2_001)).map(\.count) == [1])
        #expect(try stored(store, EventQuery(filter: EventFilter(until: 2_001))).map(\.event.id) == ["plain"])
    }

    @Test func anAbsurdSentAtSaturatesInsteadOfCrashing() {
        let batch = EventBatch(appKey: "shop", sentAt: Int64.min, events: [])
        #expect(batch.correctedTime(ts: 5, receivedAt: 10) == 5)  // the skew itself overflows: kept as sent
        let ahead = EventBatch(appKey: "shop", sentAt: -Int64.max / 2, events: [])
        #expect(ahead.correctedTime(ts: Int64.max - 1, receivedAt: Int64.max / 2) == Int64.max)
    }

    @Test func eventsStreamsByAppTypeAndCursor() throws {
        let store = try SQLiteEventStore(path: temporaryDatabase("stream"))
        _ = try store.append(EventBatch(appKey: "shop", appVersion: "1.0", events: [event("a"), event("b", type: "page_enter")]))
        _ = try store.append(EventBatch(appKey: "news", appVersion: "2.0", events: [event("c")]))
        let all = try stored(store)
        #expect(all.map(\.event.id) == ["a", "b", "c"])
        #expect(all.map(\.seq) == all.map(\.seq).sorted())
        #expect(try stored(store, EventQuery(filter: EventFilter(appKey: "shop"), types: ["click"])).map(\.event.id) == ["a"])
        #expect(try stored(store, EventQuery(filter: EventFilter(appVersion: "2.0"))).map(\.appKey) == ["news"])
        #expect(try stored(store, EventQuery(afterSeq: all[0].seq, limit: 1)).map(\.event.id) == ["b"])
        var seen = 0
        try store.events(EventQuery()) { _ in seen += 1; return false }  // stops when asked
        #expect(seen == 1)
        store.close()
        #expect(throws: StoreError.self) { try stored(store) }
    }

    @Test func publishStoresTheSampleRateAndAnEtagOfTheWholeSet() throws {
        let store = try SQLiteEventStore(path: temporaryDatabase("rate"))
        #expect(try store.ruleSet(appKey: "shop") == nil)
        try store.publish([rule("r1"), rule("n1", appKey: "news")], sampleRate: 0.25)
        let shop = try #require(try store.ruleSet(appKey: "shop"))
        #expect(shop.sampleRate == 0.25)
        #expect(shop.etag == StoredRuleSet.etag(ruleJSON: [rule("r1").json], sampleRate: 0.25))
        #expect(try store.ruleSet(appKey: "news")?.sampleRate == 0.25)
        // The same rules at another rate: another etag.
        try store.publish([rule("r1")], sampleRate: 1)
        #expect(try store.ruleSet(appKey: "shop")?.etag != shop.etag)
        #expect(try store.ruleSets(appKey: nil).map(\.appKey) == ["news", "shop"])
    }
}
