import ATLPClient
import ATLPWire
import Collector
import EventModel
import Testing
import TestSupport

/// Remote configuration across collectors (docs/collector.md, "PostgreSQL"): rules published
/// through one collector are what every collector on the database serves, under one etag.
@Suite struct SharedConfigTests {
    static func rule(_ id: String) -> JSONValue {
        [
            "id": .string(id), "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
            "viewPath": "HomeViewController-UIView-UIButton&0-0-*", "keyPath": "product.id", "keyName": "productId",
        ]
    }

    @Test func configServesTheSameRulesAndEtagThroughEveryCollector() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let access = CollectorAccess(adminToken: "admin-secret")
        let a = EmbeddedCollector(dbPath: uri, access: access)
        let b = EmbeddedCollector(dbPath: uri, access: access)
        defer { a.stop(); b.stop() }
        #expect(try a.start() != b.start())
        /// A session with `collector` (`start()` again answers the address it listens on).
        func connect(_ collector: EmbeddedCollector, token: String? = nil) throws -> ATLPConnection {
            try ATLPConnection(
                to: try collector.start(), hello: Hello(appKey: "shop", appVersion: "1.5.0", agent: "tests", token: token), timeout: .seconds(10))
        }
        let adminA = try connect(a, token: "admin-secret")
        let adminB = try connect(b, token: "admin-secret")
        let clientA = try connect(a)
        let clientB = try connect(b)
        defer { [adminA, adminB, clientA, clientB].forEach { $0.close() } }

        // Published through A: B serves the same rules under the same etag.
        #expect(try adminA.publish(rules: [Self.rule("r1"), Self.rule("r2")], sampleRate: 0.5) == 2)
        let fromA = try clientA.config(etag: nil)
        let fromB = try clientB.config(etag: nil)
        guard case .changed(let etag, let rulesA, let rateA, _) = fromA, case .changed(let etagB, let rulesB, let rateB, _) = fromB else {
            Issue.record("CONFIG without an etag answered \(fromA) and \(fromB)")
            return
        }
        #expect(rulesA.compactMap { $0["id"]?.stringValue } == ["r1", "r2"])
        #expect(rulesB == rulesA)
        #expect(etagB == etag)
        #expect(rateA == 0.5 && rateB == 0.5)

        // B knows A's etag: the rules the client holds are current.
        try clientB.send(ATLPFrame(verb: "CONFIG", body: JSONObject([("etag", .string(etag))])))
        let same = try clientB.receive()
        #expect(same.verb == "RULES")
        #expect(same.body == JSONObject([("etag", .string(etag)), ("unchanged", true)]))

        // Published through B: A serves the new set under a new etag, to a client holding the old one.
        #expect(try adminB.publish(rules: [Self.rule("r3")]) == 1)
        let next = try clientA.config(etag: etag)
        guard case .changed(let newEtag, let newRules, _, _) = next else {
            Issue.record("A answered \(next) after a publish through B")
            return
        }
        #expect(newEtag != etag)
        #expect(newRules.compactMap { $0["id"]?.stringValue } == ["r3"])
        #expect(try clientB.config(etag: newEtag) == .unchanged(etag: newEtag))
    }
}
