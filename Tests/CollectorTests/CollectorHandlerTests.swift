import ATLPClient
import ATLPWire
@testable import Collector
import EventModel
import EventStore
import SQLiteStore
import Foundation
import Synchronization
import SystemCalls
import TestSupport
import Testing

/// A collector on 127.0.0.1:0 with a fresh database, stopped when the test ends.
final class RunningCollector {
    let collector: EmbeddedCollector
    let address: SocketAddress

    init(ingestToken: String? = nil, adminToken: String? = "admin-secret") throws {
        let path = Fixtures.temporaryDirectory("collector").appendingPathComponent("events.sqlite").path
        collector = EmbeddedCollector(dbPath: path, access: CollectorAccess(ingestToken: ingestToken, adminToken: adminToken))
        address = try collector.start()
    }

    deinit { collector.stop() }

    func connect(appKey: String = "shop", appVersion: String? = "1.5.0", token: String? = nil) throws -> ATLPConnection {
        try ATLPConnection(
            to: address, hello: Hello(appKey: appKey, appVersion: appVersion, agent: "tests", token: token),
            timeout: .seconds(10))
    }

    var dbPath: String { collector.dbPath }
}

/// The ERR code of a failed request, or nil when it did not fail remotely.
func remoteCode(_ body: () throws -> Void) -> ATLPErrorCode? {
    do {
        try body()
        return nil
    } catch let e as TransportError {
        return e.remote?.code
    } catch {
        return nil
    }
}

@Suite struct CollectorHandlerTests {
    @Test func eventsAreAcknowledgedWithCountsAfterCommit() throws {
        let server = try RunningCollector()
        let c = try server.connect()
        defer { c.close() }
        let ack = try c.sendEvents(batch: "b-1", events: [event("a"), event("b"), event("a"), ["id": "x", "ts": 1, "type": "tap", "name": "n"]])
        #expect(ack == BatchAck(batch: "b-1", stored: 2, duplicates: 1, rejected: 1))
        // The ACK came after COMMIT: another connection to the file sees the batch now.
        let reader = try SQLiteEventStore(path: server.dbPath, options: StoreOptions(access: .existing))
        #expect(try reader.totals(.all) == StoreTotals(events: 2, rejected: 1, duplicates: 1, batches: 1, apps: 1))
        #expect(try reader.rejectedCounts(.all) == [ReasonCount(reason: #"type unknown event type "tap""#, count: 1)])
        // A resend of the same batch, as after a lost ACK: all duplicates, nothing stored twice.
        let again = try c.sendEvents(batch: 7, events: [event("a"), event("b")])
        #expect(again == BatchAck(batch: 7, stored: 0, duplicates: 2, rejected: 0))
        #expect(try reader.totals(.all).events == 2)
    }

    @Test func anEmptyBatchIsAcknowledged() throws {
        let server = try RunningCollector()
        let c = try server.connect()
        defer { c.close() }
        #expect(try c.sendEvents(batch: 1, events: []) == BatchAck(batch: 1, stored: 0, duplicates: 0, rejected: 0))
    }

    @Test func eventsKeepTheSessionsAppKeyAndVersion() throws {
        let server = try RunningCollector()
        let shop = try server.connect(appKey: "shop", appVersion: "1.5.0")
        let news = try server.connect(appKey: "news", appVersion: nil)
        defer { shop.close(); news.close() }
        #expect(try shop.sendEvents(batch: 1, events: [event("same")]).stored == 1)
        #expect(try news.sendEvents(batch: 1, events: [event("same")]).stored == 1)
        let rows = try sqlite(server.dbPath, "SELECT app_key || ' ' || COALESCE(app_version, '-') FROM events ORDER BY app_key")
        #expect(rows == ["news -", "shop 1.5.0"])
    }

    @Test func configServesTheRulesOfTheAppKeyWhoseRangeHoldsTheVersion() throws {
        let server = try RunningCollector()
        let admin = try server.connect(appKey: "ops", appVersion: nil, token: "admin-secret")
        defer { admin.close() }
        let rules: [JSONValue] = [
            rule("v1", appKey: "shop", version: ">=1.2.0 <2.0.0"), rule("all", appKey: "shop", version: "*"),
            rule("old", appKey: "shop", version: "<1.0.0"), rule("n1", appKey: "news", version: "*"),
        ]
        #expect(try admin.publish(rules: rules) == 4)

        func served(_ appKey: String, _ version: String?) throws -> (etag: String, ids: [String]) {
            let c = try server.connect(appKey: appKey, appVersion: version)
            defer { c.close() }
            let (etag, rules) = try c.config()
            return (etag, rules.compactMap { $0["id"]?.stringValue })
        }
        #expect(try served("shop", "1.5.0").ids == ["v1", "all"])
        #expect(try served("shop", "1.2").ids == ["v1", "all"])
        #expect(try served("shop", "2.0.0").ids == ["all"])
        #expect(try served("shop", "0.9.1").ids == ["all", "old"])
        // No version in HELLO: only rules for every version.
        #expect(try served("shop", nil).ids == ["all"])
        #expect(try served("news", "3.0").ids == ["n1"])
        #expect(try served("other", "1.0").ids == [])
        // The etag follows the list: equal lists, equal etags; different lists, different etags.
        #expect(try served("shop", "1.5.0").etag == served("shop", "1.9.9").etag)
        #expect(try served("shop", "1.5.0").etag != served("shop", "2.0.0").etag)
        // Rules are served as config.md writes them.
        let c = try server.connect(appKey: "news", appVersion: "1.0")
        defer { c.close() }
        #expect(try c.config().rules == [rule("n1", appKey: "news", version: "*")])
    }

    @Test func publishNeedsTheAdminToken() throws {
        let server = try RunningCollector()
        let plain = try server.connect()
        defer { plain.close() }
        #expect(remoteCode { _ = try plain.publish(rules: [rule("r", appKey: "shop", version: "*")]) } == .forbidden)
        // forbidden leaves the connection open.
        try plain.ping()
        #expect(try plain.config().rules.isEmpty)

        let wrong = try server.connect(token: "not-the-admin")
        defer { wrong.close() }
        #expect(remoteCode { _ = try wrong.publish(rules: [rule("r", appKey: "shop", version: "*")]) } == .forbidden)

        let admin = try server.connect(token: "admin-secret")
        defer { admin.close() }
        #expect(try admin.publish(rules: [rule("r", appKey: "shop", version: "*")]) == 1)
        #expect(try plain.config().rules.count == 1)
    }

    @Test func withoutAnAdminTokenNobodyMayPublish() throws {
        let server = try RunningCollector(adminToken: nil)
        let c = try server.connect(token: "anything")
        defer { c.close() }
        #expect(remoteCode { _ = try c.publish(rules: [rule("r", appKey: "shop", version: "*")]) } == .forbidden)
    }

    @Test func anInvalidRulePublishesNothing() throws {
        let server = try RunningCollector()
        let admin = try server.connect(token: "admin-secret")
        defer { admin.close() }
        #expect(try admin.publish(rules: [rule("keep", appKey: "shop", version: "*")]) == 1)
        let bad: JSONValue = ["id": "bad", "appKey": "shop", "appVersion": ">=x", "viewEvent": "ButtonClick",
                              "viewPath": "A&0", "keyPath": "a", "keyName": "a"]
        do {
            _ = try admin.publish(rules: [rule("new", appKey: "shop", version: "*"), bad])
            Issue.record("an invalid rule was accepted")
        } catch {
            #expect(error.remote?.code == .badRequest)
            #expect(error.remote?.message.contains("appVersion") == true)
        }
        #expect(try SQLiteEventStore(path: server.dbPath, options: StoreOptions(access: .existing)).rules().map(\.id) == ["keep"])
    }

    @Test func theIngestTokenIsRequiredWhenSet() throws {
        let server = try RunningCollector(ingestToken: "ingest-secret")
        #expect(remoteCode { _ = try server.connect() } == .unauthorized)
        #expect(remoteCode { _ = try server.connect(token: "wrong") } == .unauthorized)
        let ok = try server.connect(token: "ingest-secret")
        defer { ok.close() }
        #expect(try ok.sendEvents(batch: 1, events: [event("a")]).stored == 1)
        // The admin token also lets an agent in, as an admin.
        let admin = try server.connect(token: "admin-secret")
        defer { admin.close() }
        #expect(try admin.publish(rules: [rule("r", appKey: "shop", version: "*")]) == 1)
    }

    @Test func tokensCompareExactly() {
        let access = CollectorAccess(ingestToken: "abc", adminToken: "root")
        #expect(access.decide(Hello(appKey: "a", token: "abc")) == .accept(admin: false))
        #expect(access.decide(Hello(appKey: "a", token: "root")) == .accept(admin: true))
        for wrong in ["ab", "abcd", "ABC", "", "abc "] {
            guard case .unauthorized = access.decide(Hello(appKey: "a", token: wrong)) else {
                Issue.record("token '\(wrong)' was accepted")
                continue
            }
        }
        #expect(CollectorAccess().decide(Hello(appKey: "a")) == .accept(admin: false, authenticated: false))
        // Without an ingest token a wrong admin token is welcome, but proves nothing.
        #expect(CollectorAccess(adminToken: "root").decide(Hello(appKey: "a", token: "guess")) == .accept(admin: false, authenticated: false))
    }
}

/// A click's wire form (TestSupport's one factory).
func event(_ id: String) -> JSONValue {
    TestEvents.json(id, name: "BUY")
}

func rule(_ id: String, appKey: String, version: String) -> JSONValue {
    [
        "id": .string(id), "appKey": .string(appKey), "appVersion": .string(version), "viewEvent": "ButtonClick",
        "viewPath": "HomeViewController-UIView-UIButton&0-0-*", "keyPath": "product.id", "keyName": "productId",
    ]
}


@Suite struct CollectorRulesAnswerTests {
    @Test func aRepeatedConfigIsAnsweredWithTheBytesEncodedOnceUntilAPublishChangesThem() throws {
        let path = Fixtures.temporaryDirectory("collector").appendingPathComponent("events.sqlite").path
        let handler = CollectorHandler(store: try SQLiteEventStore(path: path), access: CollectorAccess(adminToken: "a"))
        let admin = ConnectedClient(connectionID: 1, peer: "127.0.0.1:1", hello: Hello(appKey: "shop", token: "a"), isAdmin: true)
        let app = ConnectedClient(connectionID: 2, peer: "127.0.0.1:2", hello: Hello(appKey: "shop", appVersion: "1.5.0"), isAdmin: false)
        _ = handler.handle(.publish(rules: [rule("r1", appKey: "shop", version: "*")], sampleRate: nil), client: admin)
        let first = handler.handle(.config(JSONObject()), client: app)
        let second = handler.handle(.config(JSONObject()), client: app)
        guard case .encoded(let frame, let bytes) = first, case .encoded(_, let again) = second else {
            Issue.record("CONFIG answered without its cached encoding: \(first)")
            return
        }
        #expect(bytes == frame.encoded && again == bytes)
        #expect(frame.verb == "RULES" && frame["rules"]?.arrayValue?.count == 1)
        let etag = try #require(frame["etag"]?.stringValue)
        #expect(handler.handle(.config(JSONObject([("etag", .string(etag))])), client: app) == .rulesUnchanged(etag: etag))
        // A publish changes the stored set: the next CONFIG is made anew.
        _ = handler.handle(.publish(rules: [rule("r1", appKey: "shop", version: "*"), rule("r2", appKey: "shop", version: "*")], sampleRate: nil), client: admin)
        let after = handler.handle(.config(JSONObject([("etag", .string(etag))])), client: app).wireFrame
        #expect(after["rules"]?.arrayValue?.count == 2)
        #expect(after["etag"]?.stringValue != etag)
    }
}

@Suite struct CollectorHandlerFailureTests {
    @Test func clientChosenTextInALogLineIsEscaped() throws {
        let path = Fixtures.temporaryDirectory("collector").appendingPathComponent("events.sqlite").path
        let store = try SQLiteEventStore(path: path)
        store.close()
        let logged = Mutex<[String]>([])
        let handler = CollectorHandler(store: store, log: { line in logged.withLock { $0.append(line) } })
        let forged = "shop\n2026-01-01 collector: admin token is hunter2\u{1B}[2K\r\u{202E}"
        let client = ConnectedClient(connectionID: 1, peer: "127.0.0.1:1", hello: Hello(appKey: forged), isAdmin: true)
        _ = handler.handle(.events(batch: 1, events: [event("a")], sentAt: nil), client: client)
        _ = handler.handle(.config(JSONObject()), client: client)
        let lines = logged.withLock { $0 }
        #expect(lines.count == 2)
        for line in lines {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202E })
            #expect(line.contains(#"(shop\n2026-01-01 collector: admin token is hunter2\u{1B}[2K\r\u{202E})"#))
        }
        var progress = RollupProgressLines()
        #expect(progress.line(RollupProgress(appKey: "a\u{1B}]0;x\u{7}", replayed: 0, total: 10)) == #"rebuilding the report rollups of app a\u{1B}]0;x\u{7}: 0 of 10 events"#)
    }

    @Test func aBatchThatCannotBeStoredIsNotAcknowledged() throws {
        let path = Fixtures.temporaryDirectory("collector").appendingPathComponent("events.sqlite").path
        let store = try SQLiteEventStore(path: path)
        store.close()  // Every write now fails, as on a full disk.
        let logged = Mutex<[String]>([])
        let handler = CollectorHandler(store: store, log: { line in logged.withLock { $0.append(line) } })
        let client = ConnectedClient(connectionID: 1, peer: "127.0.0.1:1", hello: Hello(appKey: "shop"), isAdmin: true)
        let reply = handler.handle(.events(batch: 1, events: [event("a")], sentAt: nil), client: client)
        guard case .error(let code, let message) = reply else {
            Issue.record("expected an ERR, got \(reply)")
            return
        }
        // A code that closes the connection, so the client reconnects and resends; never bad-request,
        // which a shipper sets aside for good.
        #expect(code == .unavailable)
        #expect(code.closesConnection)
        #expect(message.contains("resend later"))
        #expect(message.contains("(closed)") && !message.contains(path))  // the kind, not the operator's details
        #expect(logged.withLock { $0.count } == 1)
        #expect(logged.withLock { $0.first?.contains("not stored") } == true)

        guard case .error(let c2, _) = handler.handle(.config(JSONObject()), client: client) else {
            Issue.record("CONFIG on a closed store was answered")
            return
        }
        #expect(c2 == .unavailable)
    }
}
