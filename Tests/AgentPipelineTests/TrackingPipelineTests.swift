import ATLPClient
import ATLPWire
import Collector
import EventModel
import Foundation
import KVCConfig
import AgentPipeline
import SystemCalls
import TestSupport
import Testing
import Tracker

/// The one tracking pipeline's `drain(deadline:)`: it keeps the caller's deadline, returns as
/// soon as the collector acknowledged everything, and flushes the shipper once.
@Suite(.timeLimit(.minutes(3))) struct TrackingPipelineTests {
    static func pipeline(to address: SocketAddress, spool: String) throws -> TrackingPipeline {
        let app = try TrackedApp(key: "shop", version: "1.2.0")
        let link = CollectorLink(addresses: [address], hello: Hello(appKey: app.key, appVersion: app.version, agent: "pipeline-test"))
        return try TrackingPipeline(
            plan: TrackingPlan(), app: app, label: "pipeline-test", link: link,
            shipping: link.shipping(
                spool: spool, batchInterval: .milliseconds(50), backoff: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200))),
            remoteConfig: false)
    }

    static func track(_ count: Int, into pipeline: TrackingPipeline) throws {
        for i in 0..<count { #expect(try pipeline.tracker.track(name: "tap", props: JSONObject([("n", .int(Int64(i)))]))) }
    }

    /// A pipeline to a port nobody listens on (a collector bound it, then stopped), holding `events`.
    static func unreachablePipeline(in dir: URL, events: Int) throws -> TrackingPipeline {
        let gone = EmbeddedCollector(dbPath: dir.appendingPathComponent("gone.sqlite").path)
        let address = try gone.start()
        gone.stop()
        let pipeline = try Self.pipeline(to: address, spool: dir.appendingPathComponent("spool").path)
        try Self.track(events, into: pipeline)
        return pipeline
    }

    @Test func drainReturnsAtTheDeadlineWhenTheCollectorIsUnreachable() throws {
        let dir = Fixtures.temporaryDirectory("pipeline-unreachable")
        defer { try? FileManager.default.removeItem(at: dir) }
        let pipeline = try Self.unreachablePipeline(in: dir, events: 5)
        defer { pipeline.close() }

        let start = ContinuousClock.now
        let delivered = pipeline.drain(deadline: start + .milliseconds(600))
        let took = ContinuousClock.now - start
        #expect(!delivered)
        #expect(took >= .milliseconds(600))
        #expect(took < .milliseconds(600) + .seconds(2), "drain kept the caller waiting \(took) past a 600 ms deadline")
        let stats = try #require(pipeline.shipper).statistics
        #expect(stats.flushes == 1)
        #expect(stats.pendingEvents == 5)  // kept in the spool for the next run
    }

    @Test func drainReturnsAsSoonAsEverythingIsAcknowledgedAndFlushesOnce() throws {
        let dir = Fixtures.temporaryDirectory("pipeline-acknowledged")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = EmbeddedCollector(dbPath: dir.appendingPathComponent("c.sqlite").path)
        let address = try collector.start()
        defer { collector.stop() }
        let pipeline = try Self.pipeline(to: address, spool: dir.appendingPathComponent("spool").path)
        defer { pipeline.close() }
        try Self.track(40, into: pipeline)

        let start = ContinuousClock.now
        #expect(pipeline.drain(deadline: start + .seconds(60)))
        let took = ContinuousClock.now - start
        #expect(took < .seconds(20), "drain took \(took) for 40 events to a collector on loopback")
        let stats = try #require(pipeline.shipper).statistics
        #expect(stats.flushes == 1)
        #expect(stats.pendingEvents == 0)
        #expect(stats.acknowledgedEvents == pipeline.tracker.statistics.events)
        #expect(stats.stored == 40)
    }

    @Test func aDeadlineAlreadyPastReturnsAtOnce() throws {
        let dir = Fixtures.temporaryDirectory("pipeline-past")
        defer { try? FileManager.default.removeItem(at: dir) }
        let pipeline = try Self.unreachablePipeline(in: dir, events: 1)
        defer { pipeline.close() }
        let start = ContinuousClock.now
        #expect(!pipeline.drain(deadline: start - .seconds(1)))
        #expect(ContinuousClock.now - start < .seconds(1))
    }
}
