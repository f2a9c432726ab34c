import ATLPWire
import EventModel
import EventStore

/// `EVENTS` requests as they come off the wire: written by the agent's encoder, and by a
/// third-party client that follows wire.md with other spacing, key order, escapes and text. The
/// collector parses each payload straight from the frame's bytes (`ATLPRequest.events(payload:)`),
/// so the events are slices of a frame whose body starts after the verb.
enum WireBatches {
    /// The frame's payload (verb, space, body) as the collector's connection hands it over.
    static func payload(of frame: [UInt8]) -> [UInt8] {
        Array(frame[(frame.firstIndex(of: UInt8(ascii: " "))! + 1)...])
    }

    /// The agent's own encoding of `count` clicks with ids `prefix0`…, props included.
    static func agentPayload(_ prefix: String, _ count: Int, batch: Int = 1) -> [UInt8] {
        let events: [JSONValue] = (0..<count).map { i in
            .object(
                JSONObject([
                    ("id", .string("\(prefix)\(i)")), ("ts", .int(1_767_225_600_000 + Int64(i))), ("type", .string("click")),
                    ("name", .string("buy")), ("props", .object(JSONObject([("n", .int(Int64(i))), ("sku", .string("k-\(i)"))]))),
                ]))
        }
        return payload(of: ATLPRequest.events(batch: .int(Int64(batch)), events: events, sentAt: 1_767_225_600_500).frame.encoded)
    }

    /// Bodies a third-party client might send: spaces and newlines around every token, the
    /// events member after the others or first, escaped quotes, slashes and unicode (a surrogate
    /// pair among them), non-ASCII text as UTF-8, a refused event among valid ones.
    static let thirdPartyBodies: [String] = [
        #"  { "batch" : "tp-1" ,  "sentAt" : 1767225600500 , "events" : [ { "type" : "click" , "name" : "Buy \"now\"" , "id" : "tp-a1" , "ts" : 1767225600000 , "props" : { "sku" : "k\u00e9-1" , "emoji" : "\ud83d\ude00" , "path" : "a\/b" } } , { "ts" : 1767225600001 , "id" : "tp-a2" , "type" : "page_enter" , "name" : "首页" } ] }  "#,
        "{\n\t\"events\":\n\t[\n\t\t{\"id\":\"tp-b1\",\"ts\":1767225600002,\"type\":\"click\",\"name\":\"tab\\tname\",\"props\":{\"f\": 2.5, \"none\": null, \"flag\": true, \"q\": \"\\\"q\\\" \\\\ \\u0041\"}},\n\t\t42,\n\t\t{\"id\":\"tp-b2\",\"ts\":1767225600003,\"type\":\"not-a-type\",\"name\":\"x\"}\n\t],\n\t\"batch\": 9\n}\n",
        #"{"events":[{"name":"ünïcödé ✓","props":{},"type":"value_changed","ts":1767225600004,"id":"tp-c1"}],"batch":10}"#,
    ]

    static func thirdPartyPayload(_ body: String) -> [UInt8] { Array("EVENTS ".utf8) + Array(body.utf8) }

    /// The batch the collector would append for `payload` (CollectorHandler's shape).
    static func batch(_ payload: [UInt8], appKey: String = "shop") throws -> EventBatch {
        let request = try ATLPRequest.events(payload: payload)
        return EventBatch(
            appKey: appKey, appVersion: "1.2.0", agent: "test", label: request.batch.jsonText, sentAt: request.sentAt,
            eventList: request.events)
    }
}
