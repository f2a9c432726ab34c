import ATLPClient
import ATLPWire
import Collector
import CommandSupport
import EventModel
import EventStore
import Foundation
import SQLiteStore
import SystemCalls
import TestSupport
import Testing

/// Circle mode end to end over a real collector: turned on (by the `circle` command, on the
/// database the collector serves), `CONFIG` answers carry `"snapshots":true`, a `SNAPSHOT` is
/// stored and listed; turned off, the flag goes.
@Suite(.timeLimit(.minutes(3))) struct CollectorCircleModeTests {
    static let png = SnapshotUpload.pngSignature + [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 1, 64, 0, 0, 0, 200]
    static let tree = JSONObject([
        ("type", "GtkWindow"), ("path", "Cart"), ("viewId", "0123456789abcdef0123456789abcdef"), ("frame", [0, 0, 320, 200]),
        ("props", .object(JSONObject([("title", "Panier — 3 €"), ("count", 3)]))),
        ("children", [["type": "GtkButton", "path": "Cart/GtkButton[0]", "frame": [10, 10, 80, 30], "props": ["label": "Pay"]]]),
    ])

    /// Asks CONFIG (with `etag`) until its `snapshots` flag is `on` (the collector reads the
    /// circle modes at most once a second); the last answer.
    static func config(_ c: ATLPConnection, etag: String?, until on: Bool) throws -> RulesUpdate {
        var answer = try c.config(etag: etag)
        for _ in 0..<60 where answer.snapshots != on {
            Thread.sleep(forTimeInterval: 0.05)
            answer = try c.config(etag: etag)
        }
        return answer
    }

    @Test func circleModeOnMakesConfigAskForSnapshotsAndASnapshotIsStoredAndListed() throws {
        let server = try RunningCollector()
        let c = try server.connect(appKey: "shop", appVersion: "1.5.0")
        defer { c.close() }
        let before = try c.config(etag: nil)
        #expect(before.snapshots == false)
        #expect(before.frame.body?["snapshots"] == nil)  // absent, not false

        let on = collector("circle", "--db", server.dbPath, "--app", "shop", "--minutes", "5")
        #expect(on.code == .success, "\(on.err)")
        #expect(on.out.hasPrefix("circle mode for app shop on until 20"))
        #expect(on.out.hasSuffix("(5 minutes)\n"))

        // Both RULES forms carry it; the etag is the rules', unchanged by circle mode.
        let full = try Self.config(c, etag: nil, until: true)
        #expect(full.snapshots)
        guard case .changed = full else {
            Issue.record("expected the full RULES, got \(full)")
            return
        }
        #expect(full.etag == before.etag)
        #expect(try c.config(etag: full.etag) == .unchanged(etag: full.etag, snapshots: true))
        // Another app's agents are not asked.
        let news = try server.connect(appKey: "news", appVersion: "1.0")
        defer { news.close() }
        #expect(try news.config(etag: nil).snapshots == false)

        let upload = SnapshotUpload(
            page: "Cart", capturedAt: 1_764_000_000_000, width: 320, height: 200, png: Self.png, tree: Self.tree, device: "d-42")
        let id = try c.sendSnapshot(upload)
        #expect(id > 0)
        // Stored under the session's app key and version, listed, and read back whole.
        let reader = try SQLiteEventStore(path: server.dbPath, options: StoreOptions(access: .readOnly))
        defer { reader.close() }
        let stored = try #require(try reader.snapshot(id: id))
        #expect(
            try reader.snapshots(appKey: "shop", appVersion: nil)
                == [
                    SnapshotSummary(
                        id: id, appKey: "shop", appVersion: "1.5.0", page: "Cart", capturedAt: 1_764_000_000_000, width: 320, height: 200,
                        receivedAt: stored.receivedAt, device: "d-42")
                ])
        #expect(stored.png == Self.png)
        #expect(try JSONValue.parse(stored.tree) == .object(Self.tree))
        #expect(abs(stored.receivedAt - Posix.wallClockMillis()) < 60_000)

        // A bad one is a bad request; the connection stays open.
        var bad = upload.frame
        bad.body?["png"] = .string(Base64.encode(Array("not a png".utf8)))
        try c.send(bad)
        let reply = try c.receive()
        #expect(reply["code"] == "bad-request")
        #expect(reply["message"]?.stringValue?.contains("PNG signature") == true)
        try c.ping()

        let off = collector("circle", "--db", server.dbPath, "--app", "shop", "--minutes", "0")
        #expect(off.out == "circle mode for app shop off\n")
        #expect(try Self.config(c, etag: full.etag, until: false) == .unchanged(etag: full.etag))
    }

    /// An open collector's disk is not anyone's to fill: with circle mode off a `SNAPSHOT` is
    /// refused (`forbidden`, saying how to turn it on) and nothing is stored, unless the
    /// operator allowed unasked pictures (`serve --accept-snapshots`).
    @Test func aSnapshotIsStoredOnlyInCircleModeOrWhenTheOperatorAllowedThem() throws {
        let upload = SnapshotUpload(page: "Cart", capturedAt: 1_764_000_000_000, width: 320, height: 200, png: Self.png, tree: Self.tree)
        let server = try RunningCollector()
        let c = try server.connect(appKey: "shop", appVersion: "1.5.0")
        defer { c.close() }
        let refused = #expect(throws: TransportError.self) { try c.sendSnapshot(upload) }
        #expect(refused?.remote?.code == .forbidden)
        #expect(refused?.remote?.message.contains("only while circle mode is on") == true)
        try c.ping()  // the connection stays open
        let reader = try SQLiteEventStore(path: server.dbPath, options: StoreOptions(access: .readOnly))
        defer { reader.close() }
        #expect(try reader.snapshots(appKey: nil, appVersion: nil).isEmpty)

        var args = Arguments(["--accept-snapshots"])
        #expect(try ServeCommand(arguments: &args).options.access.acceptsUnaskedSnapshots)
        var plain = Arguments([])
        #expect(try ServeCommand(arguments: &plain).options.access.acceptsUnaskedSnapshots == false)
        var options = EmbeddedCollector.Options()
        options.access.acceptsUnaskedSnapshots = true
        let allowed = EmbeddedCollector(dbPath: Fixtures.temporaryDirectory("snapshots-allowed").appendingPathComponent("e.sqlite").path, options: options)
        let address = try allowed.start()
        defer { allowed.stop() }
        let a = try ATLPConnection(to: address, hello: Hello(appKey: "shop", appVersion: "1.0"), timeout: .seconds(10))
        defer { a.close() }
        #expect(try a.sendSnapshot(upload) > 0)
    }

    @Test func circleRefusesBadArgumentsWithUsage() {
        #expect(collector("circle", "--app", "shop", "--minutes", "5").code == .usage)
        #expect(collector("circle", "--db", "x.sqlite", "--minutes", "5").code == .usage)
        #expect(collector("circle", "--db", "x.sqlite", "--app", "shop").code == .usage)
        #expect(collector("circle", "--db", "x.sqlite", "--app", "shop", "--minutes", "1441").code == .usage)
        let missing = collector("circle", "--db", "/nonexistent/dir/x.sqlite", "--app", "shop", "--minutes", "5")
        #expect(missing.code == .failure)
        #expect(missing.err.contains("no database at"))
    }
}

/// `serve --max-snapshot-frame`: what the collector announces in `WELCOME` and takes.
@Suite struct MaxSnapshotFrameOptionTests {
    @Test func serveTakesMaxSnapshotFrameNeverBelowMaxFrame() throws {
        var args = Arguments(["--max-frame", "4096", "--max-snapshot-frame", "65536"])
        #expect(try ServeCommand(arguments: &args).options.maxSnapshotFrame == 65536)
        var low = Arguments(["--max-frame", "4096", "--max-snapshot-frame", "1000"])
        #expect(try ServeCommand(arguments: &low).options.maxSnapshotFrame == 4096)
        var plain = Arguments([])
        #expect(try ServeCommand(arguments: &plain).options.maxSnapshotFrame == 16 << 20)
        var bad = Arguments(["--max-snapshot-frame", "huge"])
        #expect(throws: UsageError.self) { try ServeCommand(arguments: &bad) }
    }

    @Test func theCollectorAnnouncesAndTakesItsSnapshotMaximum() throws {
        var options = EmbeddedCollector.Options(maxFrame: 4096)
        options.maxSnapshotFrame = 64 << 10
        options.access.acceptsUnaskedSnapshots = true
        let dir = Fixtures.temporaryDirectory("maxsnapshot")
        let server = EmbeddedCollector(dbPath: dir.appendingPathComponent("events.sqlite").path, options: options)
        let address = try server.start()
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: Hello(appKey: "shop", appVersion: "1.0"), timeout: .seconds(10))
        defer { c.close() }
        #expect(c.welcome == Welcome(protocolVersion: 1, maxFrame: 4096, maxSnapshot: 64 << 10))
        let png = CollectorCircleModeTests.png + [UInt8](repeating: 7, count: 30_000)
        let id = try c.sendSnapshot(
            SnapshotUpload(page: "Home", capturedAt: 1, width: 1, height: 1, png: png, tree: CollectorCircleModeTests.tree))
        #expect(try (server.store as? any SnapshotStore)?.snapshot(id: id)?.png == png)
    }
}
