import EventModel
import EventStore
import Foundation
import SQLiteStore
import Testing
import TestSupport

/// Event fields reach their SQLite columns exactly (docs/schema.md), for people who query the
/// file with `sqlite3`; the behaviour every store shares is in `StoreConformance`.
@Suite struct EventFieldTests {
    @Test func idsThatDifferAfterANULAreTwoRowsWithTheirFullBytes() throws {
        let path = temporaryDatabase("nul")
        let store = try SQLiteEventStore(path: path)
        let outcome = try store.append(EventBatch(appKey: "shop", events: [event("ord-1\u{0}a"), event("ord-1\u{0}b")]))
        #expect(outcome == BatchOutcome(stored: 2, duplicates: 0, rejected: 0))
        #expect(try sqlite(path, "SELECT hex(id) FROM events ORDER BY seq") == ["6F72642D310061", "6F72642D310062"])
        #expect(try store.publish([StoredRule(appKey: "shop", id: "r\u{0}1", json: "{}")], sampleRate: 1) == 1)
        #expect(try store.rules(appKey: "shop").map(\.id) == ["r\u{0}1"])
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
    }

    @Test func tsAsSentTheCorrectedTimeAndSentAtAreColumns() throws {
        let path = temporaryDatabase("time")
        let store = try SQLiteEventStore(path: path)
        _ = try store.append(EventBatch(appKey: "shop", sentAt: 1_000, events: [event("late", extra: [("ts", 500)])]))
        _ = try store.append(EventBatch(appKey: "shop", events: [event("plain", extra: [("ts", 2_000)])]))
        #expect(try sqlite(path, "SELECT ts, corrected_ts = received_at - 500 FROM events ORDER BY seq") == ["500|1", "2000|0"])
        #expect(try sqlite(path, "SELECT corrected_ts FROM events WHERE id = 'plain'") == ["2000"])
        #expect(try sqlite(path, "SELECT COALESCE(sent_at, 'none') FROM batches ORDER BY seq") == ["1000", "none"])
    }

    @Test func aSentAtOrCorrectionOutsideTheValidTimesIsNotApplied() {
        let now: Int64 = 1_700_000_000_000
        // A valid sentAt 1 s behind the collector moves the time 1 s on.
        #expect(EventBatch(appKey: "shop", sentAt: now - 1_000, events: []).correctedTime(ts: 5_000, receivedAt: now) == 6_000)
        // A sentAt outside the range is not applied, whatever its size.
        for sentAt in [Int64.min, -1, EventTime.latest + 1, -Int64.max / 2, Int64.max] {
            let batch = EventBatch(appKey: "shop", sentAt: sentAt, events: [])
            #expect(batch.correctedTime(ts: 5, receivedAt: now) == 5, "sentAt \(sentAt)")
            #expect(batch.correctedTime(ts: EventTime.latest, receivedAt: now) == EventTime.latest, "sentAt \(sentAt)")
        }
        // Nor is a valid one whose correction would leave the range, at either end.
        let behind = EventBatch(appKey: "shop", sentAt: EventTime.earliest, events: [])
        #expect(behind.correctedTime(ts: EventTime.latest - 10, receivedAt: now) == EventTime.latest - 10)
        let ahead = EventBatch(appKey: "shop", sentAt: EventTime.latest, events: [])
        #expect(ahead.correctedTime(ts: 5, receivedAt: now) == 5)
        #expect(ahead.correctedTime(ts: EventTime.latest, receivedAt: now) == now)
        // A time outside the range (an event the collector rejects) is never moved.
        #expect(behind.correctedTime(ts: Int64.max - 1, receivedAt: Int64.max / 2) == Int64.max - 1)
    }
}
