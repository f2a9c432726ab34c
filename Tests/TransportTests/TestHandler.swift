import ATLPWire
import EventModel
import Foundation
import Synchronization
import SystemCalls
import TestSupport
import Testing

@testable import ATLPClient
@testable import ATLPServer

/// A tiny collector for tests: dedups events by id, counts, and can be slowed down.
final class TestHandler: ATLPHandler {
    struct State {
        var ids: Set<String> = []
        var stored = 0
        var duplicates = 0
        var batches: [JSONValue] = []
        /// Each EVENTS frame's `sentAt`, in arrival order.
        var sentAts: [Int64?] = []
        var published: [JSONValue] = []
        var snapshots: [SnapshotUpload] = []
        var closedConnections = 0
    }

    let state = Mutex(State())
    let token: String?
    let adminToken: String
    /// Each EVENTS call sleeps this long first (a slow commit).
    let commitDelay: Duration
    /// Each EVENTS call waits until this semaphore is signalled (when set).
    let gate: DispatchSemaphore?

    /// Bytes of filler in each RULES reply, to make replies large.
    let rulesFiller: Int
    let etag: String
    /// Sent with `RULES` when set.
    let sampleRate: Double?
    /// EVENTS calls that have entered the handler.
    let entered = Mutex(0)
    /// CONFIG calls answered.
    let configs = Mutex(0)

    init(
        token: String? = nil, adminToken: String = "admin-secret", commitDelay: Duration = .zero,
        gate: DispatchSemaphore? = nil, rulesFiller: Int = 0, etag: String = "e1",
        sampleRate: Double? = nil
    ) {
        self.etag = etag
        self.rulesFiller = rulesFiller
        self.sampleRate = sampleRate
        self.token = token
        self.adminToken = adminToken
        self.commitDelay = commitDelay
        self.gate = gate
    }

    func hello(_ hello: Hello, peer: String) -> HelloDecision {
        if hello.token == adminToken { return .accept(admin: true) }
        if let token, hello.token != token { return .unauthorized("a valid token is required for app \(hello.appKey)") }
        return .accept(admin: false, authenticated: token != nil)
    }

    func handle(_ request: ATLPRequest, client: ConnectedClient) -> ATLPReply {
        switch request {
        case .events(let batch, let events, let sentAt):
            entered.withLock { $0 += 1 }
            gate?.wait()
            if commitDelay > .zero { Thread.sleep(forTimeInterval: Double(commitDelay.components.seconds) + Double(commitDelay.components.attoseconds) / 1e18) }
            var stored = 0
            var duplicates = 0
            var rejected = 0
            state.withLock { s in
                s.batches.append(batch)
                s.sentAts.append(sentAt)
                for e in events {
                    guard let event = try? TrackEvent(json: e) else {
                        rejected += 1
                        continue
                    }
                    if s.ids.insert(event.id).inserted { stored += 1 } else { duplicates += 1 }
                }
                s.stored += stored
                s.duplicates += duplicates
            }
            return .ack(batch: batch, stored: stored, duplicates: duplicates, rejected: rejected)
        case .config(let body):
            configs.withLock { $0 += 1 }
            if body["etag"]?.stringValue == etag { return .rulesUnchanged(etag: etag) }
            if rulesFiller > 0 {
                return .rules(etag: etag, rules: [["id": "r1", "filler": .string(String(repeating: "x", count: rulesFiller))]])
            }
            return .rules(etag: etag, rules: [["id": "r1"]], sampleRate: sampleRate)
        case .publish(let rules, _):
            if rules.contains(where: { $0.objectValue == nil }) { return .error(.badRequest, "a rule must be an object") }
            state.withLock { $0.published += rules }
            return .published(stored: rules.count)
        case .snapshot(let upload):
            return .snapshotStored(id: state.withLock { s in
                s.snapshots.append(upload)
                return Int64(s.snapshots.count)
            })
        }
    }

    func closed(client: ConnectedClient?, peer: String) {
        state.withLock { $0.closedConnections += 1 }
    }

    var stored: Int { state.withLock { $0.stored } }
    var sentAts: [Int64?] { state.withLock { $0.sentAts } }
    var duplicates: Int { state.withLock { $0.duplicates } }
}

/// A server on 127.0.0.1, port 0, with small limits for tests.
func startServer(
    _ handler: TestHandler = TestHandler(), maxFrame: Int = 4096, idleTimeout: Duration = .seconds(30),
    maxConnections: Int = 64, host: String = "127.0.0.1", maxOutputBytes: Int = 4 << 20, useEpoll: Bool = true
) throws -> (ATLPService, SocketAddress) {
    try startServer(
        handler,
        configuration: ATLPServerConfiguration(
            host: host, port: 0, maxFrame: maxFrame, idleTimeout: idleTimeout, maxConnections: maxConnections,
            stopGracePeriod: .seconds(2), maxOutputBytes: maxOutputBytes, useEpoll: useEpoll,
            maxConnectionsPerAddress: maxConnections))
}

/// A server with `configuration` (its port should be 0).
func startServer(_ handler: TestHandler, configuration: ATLPServerConfiguration) throws -> (ATLPService, SocketAddress) {
    let server = ATLPService(configuration: configuration, handler: handler)
    let address = try server.start()
    return (server, address)
}

let testHello = Hello(appKey: "shop", appVersion: "1.2.0", agent: "tests")

/// A tap event (TestSupport's one factory).
func event(_ id: String, ts: Int64 = TestEvents.time) -> TrackEvent {
    TestEvents.event(id, name: "Home#buy#tap", ts: ts)
}

/// Polls `condition` every 5 ms, at most `attempts` times; true when it held.
func eventually(attempts: Int = 2000, _ condition: () -> Bool) -> Bool {
    for _ in 0..<attempts {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return condition()
}

/// `<length> <payload>` for a payload written as text.
func wire(_ payload: String) -> [UInt8] {
    Array("\(payload.utf8.count) \(payload)".utf8)
}

/// A JSON object literal.
func obj(_ value: JSONValue) -> JSONObject { value.objectValue! }

/// Reads the next frame and checks it is `ERR` with `code`; then checks whether the
/// connection is closed (for closing codes) or still answers `PING`.
func expectError(
    _ c: ATLPConnection, _ code: ATLPErrorCode, sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        let reply = try c.receive()
        #expect(reply.verb == "ERR", "\(reply)", sourceLocation: sourceLocation)
        #expect(reply["code"]?.stringValue == code.rawValue, "\(reply)", sourceLocation: sourceLocation)
        #expect((reply["message"]?.stringValue ?? "").count > 10, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected ERR \(code), got \(error)", sourceLocation: sourceLocation)
        return
    }
    if code.closesConnection {
        do {
            let extra = try c.receive()
            Issue.record("expected the connection closed after \(code), got \(extra)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .closed, "\(error)", sourceLocation: sourceLocation)
        }
    } else {
        #expect(throws: Never.self, sourceLocation: sourceLocation) { try c.ping() }
    }
}

