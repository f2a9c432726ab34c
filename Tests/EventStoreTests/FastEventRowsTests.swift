import EventModel
import EventStore
import Foundation
import SQLiteStore
import Testing
import TestSupport

/// The rows SQLite stores for events read straight from an `EVENTS` body (`EventList.parseBody`,
/// as the collector reads them) are the rows it stores for the same events as generic values.
@Suite struct FastEventRowsTests {
    static let columns = """
        app_key, hex(id), ts, type, hex(name), hex(page), hex(path), view_id, hex(session), hex(user_id), hex(device_id),
        quote(duration), hex(props), app_version, corrected_ts
        """

    /// Stores each body's events in two stores, generic and read straight; returns both databases' paths.
    static func storeBothWays(_ bodies: [[UInt8]]) throws -> (generic: String, fast: String) {
        let directory = Fixtures.temporaryDirectory("fast-event-rows")
        let generic = directory.appendingPathComponent("generic.sqlite").path
        let fast = directory.appendingPathComponent("fast.sqlite").path
        let genericStore = try SQLiteEventStore(path: generic)
        let fastStore = try SQLiteEventStore(path: fast)
        for body in bodies {
            let value = try JSONValue.parse(body)
            let events = try #require(value["events"]?.arrayValue)
            let read = try EventList.parseBody(body[...], eventsMember: "events")
            let list = try #require(read.events)
            let a = try genericStore.append(EventBatch(appKey: "shop", appVersion: "1.0", label: "1", events: events))
            let b = try fastStore.append(EventBatch(appKey: "shop", appVersion: "1.0", label: "1", eventList: list))
            #expect(a == b)
        }
        genericStore.close()
        fastStore.close()
        return (generic, fast)
    }

    @Test(.timeLimit(.minutes(3))) func theIngestMixAndTrickyEventsAreStoredAlike() throws {
        var bodies: [[UInt8]] = []
        var traffic = ShopTraffic.ingestMix(seed: 3)
        traffic.batches(total: 2_000, batchSize: 500) { events in
            bodies.append(JSONValue.object(JSONObject([("batch", "b"), ("events", .array(events))])).jsonBytes)
        }
        let tricky = [
            #"{"id":"t1","ts":1700000000000,"type":"click","name":"n","props":{"q":"a\"b\\c\n\u0000\/é\ud83d\ude00\uffff"}}"#,
            #"{"id":"t2","ts":1,"type":"click","name":"n","props":{"big":12345678901234567890,"f":1.0,"e":1e2,"z":-0,"a":1,"a":2}}"#,
            #" { "id" : "t3" , "ts" : 2 , "type" : "page_leave" , "name" : "n" , "duration" : 5 , "props" : { "k" : "v" } } "#,
            #"{"i\u0064":"t4","id":"t4b","ts":3,"type":"app_start","name":"n","extra":{"deep":[1]},"props":{}}"#,
            #"{"id":"t5","ts":1.0,"type":"click","name":"n"}"#,
            #"{"id":"t6","ts":1,"type":"click","name":"n","props":{"a":{"b":1}}}"#,
            #"{"id":"t7","ts":1,"type":"tap","name":"n"}"#,
            #"[{"id":"t8"}]"#, "null", "-0",
            #"{"id":"t1","ts":1700000000000,"type":"click","name":"again"}"#,
        ]
        bodies.append(Array(#"{"batch":"t","events":[\#(tricky.joined(separator: ","))]}"#.utf8))
        let (generic, fast) = try Self.storeBothWays(bodies)
        let rows = try sqlite(generic, "SELECT \(Self.columns) FROM events ORDER BY seq")
        #expect(rows.count == 2_000 + 4)
        #expect(try sqlite(fast, "SELECT \(Self.columns) FROM events ORDER BY seq") == rows)
        let rejected = "SELECT hex(raw), hex(reason), app_key, app_version FROM rejected ORDER BY rowid"
        #expect(try sqlite(generic, rejected).count == 6)
        #expect(try sqlite(fast, rejected) == sqlite(generic, rejected))
        let links = "SELECT * FROM device_links ORDER BY 1, 2, 3"
        #expect(try sqlite(fast, links) == sqlite(generic, links))
    }
}
