import ATLPWire
import Collector
import EventModel
import EventStore
import Foundation
import AgentPipeline
import SystemCalls
import TestSupport
import Testing
import ViewIdentity

/// `ATLPSnapshotSender` against a real collector (docs/agent.md "Snapshots").
@Suite(.timeLimit(.minutes(3))) struct SnapshotSenderTests {
    static let hello = Hello(appKey: "shop", appVersion: "1.2.0", agent: "snapshot-test")

    static func snapshot(_ page: String, pixels: Int = 0) -> PageSnapshot {
        // A PNG signature and filler: the collector checks the signature, not the picture.
        let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: pixels)
        return PageSnapshot(
            page: page, capturedAt: 1_700_000_000_000, width: 10, height: 20, png: png,
            tree: JSONObject([("type", "UIView"), ("path", .string(page + "&0")), ("frame", [0, 0, 10, 20])]))
    }

    @Test func snapshotsAreStoredOverOneConnectionAndTooLargeOnesAreNotSent() throws {
        let dir = Fixtures.temporaryDirectory("snapshot-sender")
        defer { try? FileManager.default.removeItem(at: dir) }
        var options = EmbeddedCollector.Options()
        options.maxFrame = 64 << 10
        options.maxSnapshotFrame = 128 << 10
        options.access.acceptsUnaskedSnapshots = true
        let collector = EmbeddedCollector(dbPath: dir.appendingPathComponent("c.sqlite").path, options: options)
        let address = try collector.start()
        defer { collector.stop() }
        let sender = ATLPSnapshotSender(addresses: [SocketAddress(host: "127.0.0.1", port: 1), address], hello: Self.hello)
        defer { sender.close() }
        sender.send(Self.snapshot("HomeViewController"))
        #expect(sender.flush(timeout: .seconds(20)))
        sender.send(Self.snapshot("DetailViewController"))
        sender.send(Self.snapshot("Huge", pixels: 200 << 10))  // 270 KiB in base64
        #expect(sender.flush(timeout: .seconds(20)))
        let s = sender.statistics
        #expect(s.sent == 2 && s.failed == 1 && s.dropped == 0, "\(s)")
        #expect(s.lastError?.contains("at most") == true, "\(s)")
        let store = try #require(collector.store as? any SnapshotStore)
        let stored = try store.snapshots(appKey: "shop", appVersion: "1.2.0")
        #expect(Set(stored.map(\.page)) == ["HomeViewController", "DetailViewController"])
        #expect(stored.contains { $0.id == s.lastSnapshotID })
        let detailID = try #require(stored.first { $0.page == "DetailViewController" }).id
        let detail = try #require(try store.snapshot(id: detailID))
        #expect(detail.png == Self.snapshot("DetailViewController").png && detail.width == 10 && detail.height == 20)
    }

    /// A collector started a moment after the agent (the README's quick start) gets every
    /// snapshot: a refused connection is tried again, as events are.
    @Test func aCollectorThatStartsListeningAMomentLaterGetsTheSnapshots() throws {
        let dir = Fixtures.temporaryDirectory("snapshot-sender-late")
        defer { try? FileManager.default.removeItem(at: dir) }
        var options = EmbeddedCollector.Options()
        options.access.acceptsUnaskedSnapshots = true
        // A free loopback port: bound by a first collector, then let go.
        let probe = EmbeddedCollector(dbPath: dir.appendingPathComponent("probe.sqlite").path, options: options)
        let port = try probe.start().port
        probe.stop()
        options.listen = SocketAddress(host: "127.0.0.1", port: port)
        let sender = ATLPSnapshotSender(addresses: [options.listen], hello: Self.hello)
        defer { sender.close() }
        for page in ["HomeViewController", "DetailViewController", "CartViewController"] { sender.send(Self.snapshot(page)) }
        Thread.sleep(forTimeInterval: 0.8)  // refused meanwhile: nothing listens
        let late = EmbeddedCollector(dbPath: dir.appendingPathComponent("late.sqlite").path, options: options)
        _ = try late.start()
        defer { late.stop() }
        #expect(sender.flush(timeout: .seconds(30)))
        let s = sender.statistics
        #expect(s.sent == 3 && s.failed == 0 && s.dropped == 0, "\(s)")
        let store = try #require(late.store as? any SnapshotStore)
        #expect(Set(try store.snapshots(appKey: "shop", appVersion: nil).map(\.page)) == ["HomeViewController", "DetailViewController", "CartViewController"])
    }

    @Test func anUnreachableCollectorLosesSnapshotsAndCountsThem() throws {
        let sender = ATLPSnapshotSender(addresses: [SocketAddress(host: "127.0.0.1", port: 1)], hello: Self.hello, timeout: .seconds(2))
        defer { sender.close() }
        for i in 0..<10 { sender.send(Self.snapshot("Page\(i)")) }
        #expect(sender.flush(timeout: .seconds(30)))
        let s = sender.statistics
        #expect(s.sent == 0 && s.failed + s.dropped == 10 && s.failed >= 1, "\(s)")
    }
}
