import Collector
import EventModel
import EventStore
import Foundation
import SQLiteStore
import Testing
import TestSupport
import ATLPClient
import ATLPWire

/// The collector's side of remote configuration and event time (docs/wire.md): `CONFIG` with
/// an etag, `PUBLISH` with a sampling rate, `EVENTS` with `sentAt`.
@Suite struct AgentPipelineTests {
    func config(_ c: ATLPConnection, etag: String? = nil) throws -> ATLPFrame {
        var body = JSONObject()
        if let etag { body["etag"] = .string(etag) }
        return try c.request(ATLPFrame(verb: "CONFIG", body: body))
    }

    @Test func configWithTheCurrentEtagAnswersUnchanged() throws {
        let server = try RunningCollector()
        let admin = try server.connect(token: "admin-secret")
        let c = try server.connect()
        defer { admin.close(); c.close() }
        #expect(try admin.publish(rules: [rule("r1", appKey: "shop", version: "*")]) == 1)
        let first = try config(c)
        let etag = try #require(first["etag"]?.stringValue)
        #expect(first["rules"]?.arrayValue?.count == 1)
        #expect(first["sampleRate"]?.doubleValue == 1)

        let same = try config(c, etag: etag)
        #expect(same.verb == "RULES")
        #expect(same.body == JSONObject([("etag", .string(etag)), ("unchanged", true)]))
        // A stale etag gets the whole set.
        #expect(try config(c, etag: "stale")["rules"]?.arrayValue?.count == 1)
        // After a publish the old etag is stale.
        #expect(try admin.publish(rules: [rule("r1", appKey: "shop", version: "*"), rule("r2", appKey: "shop", version: "*")]) == 2)
        let next = try config(c, etag: etag)
        #expect(next["unchanged"] == nil)
        #expect(next["rules"]?.arrayValue?.count == 2)
        #expect(next["etag"]?.stringValue != etag)
    }

    @Test func theSampleRateIsPublishedWithTheRulesAndPartOfTheEtag() throws {
        let server = try RunningCollector()
        let admin = try server.connect(token: "admin-secret")
        let c = try server.connect()
        defer { admin.close(); c.close() }
        let rules = [rule("r1", appKey: "shop", version: "*")]
        #expect(try admin.publish(rules: rules) == 1)
        let full = try config(c)
        #expect(try admin.publish(rules: rules, sampleRate: 0.25) == 1)
        let sampled = try config(c, etag: full["etag"]?.stringValue)
        #expect(sampled["sampleRate"]?.doubleValue == 0.25)
        #expect(sampled["rules"] == full["rules"])
        #expect(sampled["etag"] != full["etag"])
        #expect(try SQLiteEventStore(path: server.dbPath, options: StoreOptions(access: .readOnly)).ruleSet(appKey: "shop")?.sampleRate == 0.25)

        for bad: JSONValue in [2, -0.1, "half"] {
            try admin.send(ATLPFrame(verb: "PUBLISH", body: JSONObject([("rules", .array(rules)), ("sampleRate", bad)])))
            let answer = try admin.receive()
            #expect(answer.verb == "ERR")
            #expect(answer["code"]?.stringValue == "bad-request")
            #expect(answer["message"]?.stringValue?.contains("sampleRate") == true)
        }
    }

    @Test func eventsWithSentAtAreStoredWithTheCorrectedTime() throws {
        let server = try RunningCollector()
        let c = try server.connect()
        defer { c.close() }
        let ts: Int64 = 1_700_000_000_000
        // The client's clock is one hour behind.
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let sentAt = now - 3_600_000
        let event: JSONValue = ["id": "e1", "ts": .int(ts), "type": "click", "name": "n", "user": "u-1", "device": "d-1"]
        let ack = try c.request(
            ATLPFrame(verb: "EVENTS", body: JSONObject([("batch", 1), ("sentAt", .int(sentAt)), ("events", [event])])))
        #expect(ack["stored"] == 1)
        let row = try sqlite(server.dbPath, "SELECT ts, corrected_ts - ts, user_id, device_id FROM events")
        let fields = try #require(row.first).split(separator: "|").map(String.init)
        #expect(fields[0] == String(ts))
        let skew = try #require(Int64(fields[1]))
        #expect(skew >= 3_600_000)  // received − sentAt, with received at or after `now`
        #expect(Array(fields[2...]) == ["u-1", "d-1"])

        try c.send(ATLPFrame(verb: "EVENTS", body: JSONObject([("batch", 2), ("sentAt", "noon"), ("events", [])])))
        let bad = try c.receive()
        #expect(bad.verb == "ERR")
        #expect(bad["code"]?.stringValue == "bad-request")
    }
}
