import ATLPWire
import EventModel
import Foundation
import Synchronization
import SystemCalls
import Testing

@testable import ATLPClient
@testable import ATLPServer

/// A port nobody listens on right now (a server bound it, then stopped).
func freePort() throws -> SocketAddress {
    let (server, address) = try startServer()
    server.stop()
    return address
}

func shipperConfiguration(
    _ address: SocketAddress, spool: String, batchMaxEvents: Int = 100, maxSpoolBytes: Int = 8 << 20,
    hello: Hello = testHello, batchInterval: Duration = .seconds(30)
) -> EventShipperConfiguration {
    EventShipperConfiguration(
        address: address, hello: hello, spoolDirectory: spool, batchMaxEvents: batchMaxEvents,
        batchInterval: batchInterval, maxSpoolBytes: maxSpoolBytes, connectTimeout: .seconds(2),
        backoff: Backoff(initial: .milliseconds(5), maximum: .milliseconds(50), random: { 0.5 }))
}

func tempSpool() -> String {
    NSTemporaryDirectory() + "atlp-spool-\(UUID().uuidString.prefix(8))"
}

@Suite struct EventShipperTests {
    @Test func spoolsWhileNoServerListensThenDeliversEverythingExactlyOnce() throws {
        let address = try freePort()
        let spool = tempSpool()
        let progress = Mutex(0)
        let shipper = try EventShipper(configuration: shipperConfiguration(address, spool: spool)) { _ in
            progress.withLock { $0 += 1 }
        }
        defer { shipper.close(timeout: .zero) }
        for i in 0..<1000 { try shipper.enqueue(event("e\(i)")) }
        #expect(shipper.flush(timeout: .milliseconds(100)) == false)
        var stats = shipper.statistics
        #expect(stats.pendingEvents == 1000)
        #expect(stats.acknowledgedEvents == 0)
        #expect(stats.lastError?.contains("Connection refused") == true)

        let handler = TestHandler()
        let server = ATLPService(
            configuration: ATLPServerConfiguration(host: "127.0.0.1", port: address.port, maxFrame: 1 << 20), handler: handler)
        try server.start()
        defer { server.stop() }
        #expect(shipper.flush(timeout: .seconds(30)))
        stats = shipper.statistics
        #expect(stats.pendingEvents == 0)
        #expect(stats.acknowledgedEvents == 1000)
        #expect(stats.acknowledgedBatches == 10)
        #expect(stats.stored == 1000)
        #expect(handler.stored == 1000)
        #expect(handler.duplicates == 0)
        #expect(eventually { progress.withLock { $0 } == 10 })  // called on the delivery thread, after the ACK counts
        #expect(try Posix.listDirectory(spool).filter { $0.hasPrefix("batch-") }.isEmpty)
    }

    @Test func deliveryFailsOverToTheNextCollectorAndStaysThere() throws {
        let first = TestHandler()
        let second = TestHandler()
        let (a, addressA) = try startServer(first, maxFrame: 1 << 20)
        let (b, addressB) = try startServer(second, maxFrame: 1 << 20)
        defer { b.stop() }
        let shipper = try EventShipper(
            configuration: shipperConfiguration(addressA, spool: tempSpool()).with { $0.addresses = [addressA, addressB] })
        defer { shipper.close(timeout: .zero) }
        for i in 0..<150 { try shipper.enqueue(event("f\(i)")) }
        #expect(shipper.flush(timeout: .seconds(30)))
        #expect(first.stored == 150)
        #expect(shipper.statistics.collector == addressA.description)

        a.stop()  // the first collector goes away: the rest goes to the second
        for i in 150..<300 { try shipper.enqueue(event("f\(i)")) }
        #expect(shipper.flush(timeout: .seconds(30)))
        #expect(first.stored + second.stored == 300)
        #expect(second.stored == 150)
        #expect(shipper.statistics.collector == addressB.description)

        let deadFirst = try freePort()  // a list whose first collector never answers
        let other = try EventShipper(
            configuration: shipperConfiguration(deadFirst, spool: tempSpool()).with { $0.addresses = [deadFirst, addressB] })
        defer { other.close(timeout: .zero) }
        try other.enqueue(event("g0"))
        #expect(other.flush(timeout: .seconds(30)))
        #expect(second.stored == 151)
    }

    /// A program says once that its collectors cannot be reached, not per event nor per retry; a
    /// failover list with one collector answering never counts as unreachable.
    @Test func unreachableCollectorsAreToldOnceWithTheLastFailure() throws {
        let told = Mutex<[String]>([])
        let (deadA, deadB) = (try freePort(), try freePort())
        let shipper = try EventShipper(
            configuration: shipperConfiguration(deadA, spool: tempSpool(), batchInterval: .milliseconds(1)).with {
                $0.addresses = [deadA, deadB]
            },
            onUnreachable: { error in told.withLock { $0.append(error.description) } })
        defer { shipper.close(timeout: .zero) }
        for i in 0..<200 { try shipper.enqueue(event("u\(i)")) }
        // Many rounds of retries over both collectors (backoff at most 50 ms).
        #expect(eventually { (shipper.statistics.lastError ?? "").contains("Connection refused") })
        Thread.sleep(forTimeInterval: 0.5)
        #expect(told.withLock { $0.count } == 1)
        #expect(told.withLock { $0.first }?.contains("Connection refused") == true)
        #expect(shipper.statistics.pendingEvents == 200)

        let handler = TestHandler()
        let (server, address) = try startServer(handler, maxFrame: 1 << 20)
        defer { server.stop() }
        let reachable = Mutex(0)
        let failingOver = try EventShipper(
            configuration: shipperConfiguration(deadA, spool: tempSpool(), batchInterval: .milliseconds(1)).with {
                $0.addresses = [deadA, address]
            },
            onUnreachable: { _ in reachable.withLock { $0 += 1 } })
        defer { failingOver.close(timeout: .zero) }
        for i in 0..<50 { try failingOver.enqueue(event("v\(i)")) }
        #expect(failingOver.flush(timeout: .seconds(30)))
        #expect(reachable.withLock { $0 } == 0)
    }

    /// `flush(stall:)` (send's wait) gives up only after that long without an ACK, and returns as
    /// soon as everything is acknowledged; each call counts as one flush.
    @Test func aStalledFlushGivesUpAfterTheStallAndNotBefore() throws {
        let dead = try freePort()
        let stuck = try EventShipper(configuration: shipperConfiguration(dead, spool: tempSpool()))
        defer { stuck.close(timeout: .zero) }
        try stuck.enqueue(event("stall-0"))
        let start = ContinuousClock.now
        let ticks = Mutex(0)
        #expect(!stuck.flush(stall: .milliseconds(400), tick: (.milliseconds(100), { _ in ticks.withLock { $0 += 1 } })))
        let took = ContinuousClock.now - start
        #expect(took >= .milliseconds(400) && took < .milliseconds(400) + .seconds(2), "gave up after \(took)")
        #expect(ticks.withLock { $0 } >= 2)  // a progress line is redrawn while it waits
        #expect(stuck.statistics.flushes == 1)

        let handler = TestHandler()
        let (server, address) = try startServer(handler, maxFrame: 1 << 20)
        defer { server.stop() }
        let live = try EventShipper(configuration: shipperConfiguration(address, spool: tempSpool()))
        defer { live.close(timeout: .zero) }
        for i in 0..<250 { try live.enqueue(event("live-\(i)")) }
        let begun = ContinuousClock.now
        #expect(live.flush(stall: .seconds(60)))
        #expect(ContinuousClock.now - begun < .seconds(20))
        #expect(handler.stored == 250)
    }

    @Test func everyEventsFrameCarriesTheShippersClockAsSentAt() throws {
        let handler = TestHandler()
        let (server, address) = try startServer(handler, maxFrame: 1 << 20)
        defer { server.stop() }
        let shipper = try EventShipper(configuration: shipperConfiguration(address, spool: tempSpool()))
        defer { shipper.close(timeout: .zero) }
        let before = Posix.wallClockMillis()
        for i in 0..<250 { try shipper.enqueue(event("s\(i)")) }
        #expect(shipper.flush(timeout: .seconds(30)))
        let after = Posix.wallClockMillis()
        let sentAts = handler.sentAts
        #expect(sentAts.count == 3)  // batches of 100
        for sentAt in sentAts {
            #expect(sentAt.map { (before...after).contains($0) } == true, "sentAt \(String(describing: sentAt)) not in \(before)...\(after)")
        }
    }

    @Test func anAbandonedClientsBatchIsResentWithTheSameIDByTheNextOne() throws {
        let gate = DispatchSemaphore(value: 0)
        let handler = TestHandler(gate: gate)
        let (server, address) = try startServer(handler, maxFrame: 1 << 20)
        defer { server.stop() }
        let spool = tempSpool()
        let first = try EventShipper(configuration: shipperConfiguration(address, spool: spool))
        for i in 0..<50 { try first.enqueue(event("a\(i)")) }
        #expect(first.flush(timeout: .milliseconds(50)) == false)
        #expect(eventually { handler.entered.withLock { $0 } == 1 })  // sent, not acknowledged
        #expect(first.close(timeout: .zero) == false)  // the process "dies" without its ACK
        #expect(throws: SpoolError.self) { try first.enqueue(event("late")) }
        for _ in 0..<10 { gate.signal() }  // the collector commits the first copy after all
        // ...before the next client resends it (else, on a loaded machine, the resent copy could
        // be committed first and the abandoned one counted as the duplicate).
        #expect(eventually { handler.stored == 50 })

        let second = try EventShipper(configuration: shipperConfiguration(address, spool: spool))
        defer { second.close(timeout: .zero) }
        #expect(second.statistics.pendingEvents == 50)
        #expect(second.flush(timeout: .seconds(30)))
        #expect(handler.stored == 50)
        #expect(handler.duplicates == 50)
        let batches = handler.state.withLock { $0.batches }
        #expect(batches.count == 2)
        #expect(batches[0] == batches[1])
        #expect(second.statistics.duplicates == 50)
    }

    /// Consent withdrawn: what was not sent leaves the spool (sealed batches and the open
    /// segment) and is never delivered; events taken later are shipped as usual.
    @Test func discardUnsentDropsEveryEventNotYetSent() throws {
        let address = try freePort()
        let spool = tempSpool()
        let shipper = try EventShipper(configuration: shipperConfiguration(address, spool: spool, batchMaxEvents: 10))
        defer { shipper.close(timeout: .zero) }
        for i in 0..<25 { try shipper.enqueue(event("d\(i)")) }  // two sealed batches of 10, five in the open segment
        #expect(shipper.statistics.pendingEvents == 25)
        shipper.discardUnsent()
        #expect(eventually { shipper.statistics.pendingEvents == 0 })
        #expect(shipper.statistics.discarded == 25)
        let left = try Posix.listDirectory(spool).filter { $0.hasPrefix("batch-") || $0 == "open.log" }
        #expect(left.isEmpty, "\(left)")

        try shipper.enqueue(event("after"))
        let handler = TestHandler()
        let server = ATLPService(
            configuration: ATLPServerConfiguration(host: "127.0.0.1", port: address.port, maxFrame: 1 << 20), handler: handler)
        try server.start()
        defer { server.stop() }
        #expect(shipper.flush(timeout: .seconds(30)))
        #expect(handler.stored == 1, "only the event taken after the discard is delivered")
    }

    @Test func aFullSpoolRefusesWithATypedErrorAndCounts() throws {
        let address = try freePort()
        let spool = tempSpool()
        let shipper = try EventShipper(configuration: shipperConfiguration(address, spool: spool, maxSpoolBytes: 2000))
        defer { shipper.close(timeout: .zero) }
        var accepted = 0
        var refusal: SpoolError?
        for i in 0..<100 {
            do {
                try shipper.enqueue(event("f\(i)"))
                accepted += 1
            } catch {
                refusal = error
                break
            }
        }
        #expect(refusal?.code == .full)
        #expect(refusal?.description.contains("full") == true)
        #expect(accepted > 5)
        #expect(shipper.statistics.refused == 1)
        #expect(shipper.statistics.pendingEvents == accepted)
    }

    @Test func unauthorizedHaltsDeliveryAndKeepsTheEvents() throws {
        let (server, address) = try startServer(TestHandler(token: "right"))
        defer { server.stop() }
        let shipper = try EventShipper(
            configuration: shipperConfiguration(address, spool: tempSpool(), hello: Hello(appKey: "shop", token: "wrong")))
        defer { shipper.close(timeout: .zero) }
        try shipper.enqueue(event("u1"))
        #expect(shipper.flush(timeout: .seconds(20)) == false)
        let stats = shipper.statistics
        #expect(stats.halted)
        #expect(stats.lastError?.contains("unauthorized") == true)
        #expect(stats.pendingEvents == 1)
        #expect(stats.connections == 0)
    }

    @Test func aHelloTheCollectorRefusesHaltsDelivery() throws {
        let (server, address) = try startServer()
        defer { server.stop() }
        let shipper = try EventShipper(configuration: shipperConfiguration(address, spool: tempSpool(), hello: Hello(appKey: "")))
        defer { shipper.close(timeout: .zero) }
        try shipper.enqueue(event("h1"))
        #expect(shipper.flush(timeout: .seconds(20)) == false)
        #expect(shipper.statistics.halted)
        #expect(shipper.statistics.lastError?.contains("bad-request") == true)
    }

    @Test func batchesAreSplitToTheCollectorsMaxFrameAndOversizedEventsSetAside() throws {
        let handler = TestHandler()
        let (server, address) = try startServer(handler, maxFrame: 1024)
        defer { server.stop() }
        let spool = tempSpool()
        let shipper = try EventShipper(configuration: shipperConfiguration(address, spool: spool))
        defer { shipper.close(timeout: .zero) }
        for i in 0..<60 { try shipper.enqueue(event("s\(i)")) }
        var big = event("big")
        big.props = obj(["text": .string(String(repeating: "z", count: 2000))])
        try shipper.enqueue(big)
        #expect(shipper.flush(timeout: .seconds(30)))
        #expect(handler.stored == 60)
        let stats = shipper.statistics
        #expect(stats.undeliverable == 1)
        #expect(stats.acknowledgedBatches > 1)
        let aside = try Posix.listDirectory(spool + "/undeliverable")
        #expect(aside.contains { $0.hasSuffix(".reason") })
        #expect(aside.count == 2)
    }

    @Test func anERRFrameTooLargeSplitsTheBatchUntilItFits() throws {
        // The collector announces 1 MiB but takes 2,000 bytes: 40 events (~3 KB) must be split.
        let fake = try FakeCollector(announcedMaxFrame: 1 << 20, realMaxFrame: 2000, connections: 10)
        defer { fake.stop() }
        let spool = tempSpool()
        let shipper = try EventShipper(configuration: shipperConfiguration(fake.address, spool: spool))
        defer { shipper.close(timeout: .zero) }
        for i in 0..<40 { try shipper.enqueue(event("x\(i)")) }
        #expect(shipper.flush(timeout: .seconds(30)))
        let ids = fake.acknowledged.withLock { $0 }
        #expect(ids.count == 40)
        #expect(Set(ids) == Set((0..<40).map { "x\($0)" }))
        #expect(fake.tooLarge.withLock { $0 } >= 1)
        #expect(shipper.statistics.undeliverable == 0)
        #expect(shipper.statistics.acknowledgedBatches >= 2)
    }

    @Test func aBatchTheCollectorRefusesIsSetAsideAndTheRestDelivered() throws {
        let fake = try FakeCollector(connections: 10, poison: "p2")
        defer { fake.stop() }
        let spool = tempSpool()
        let shipper = try EventShipper(configuration: shipperConfiguration(fake.address, spool: spool, batchMaxEvents: 1))
        defer { shipper.close(timeout: .zero) }
        for i in 0..<5 { try shipper.enqueue(event("p\(i)")) }
        #expect(shipper.flush(timeout: .seconds(30)))
        #expect(fake.acknowledged.withLock { $0 } == ["p0", "p1", "p3", "p4"])
        let stats = shipper.statistics
        #expect(stats.undeliverable == 1)
        #expect(stats.connections == 1)  // bad-request keeps the connection
        let aside = try Posix.listDirectory(spool + "/undeliverable").sorted()
        #expect(aside.count == 2)
        let reason = try String(contentsOfFile: spool + "/undeliverable/" + aside[1], encoding: .utf8)
        #expect(reason.contains("bad-request: event p2 breaks a rule"))
        let kept = try String(contentsOfFile: spool + "/undeliverable/" + aside[0], encoding: .utf8)
        #expect(kept.contains("\"id\":\"p2\""))
    }

    @Test func theIntervalCutsASmallBatch() throws {
        let handler = TestHandler()
        let (server, address) = try startServer(handler, maxFrame: 1 << 20)
        defer { server.stop() }
        let shipper = try EventShipper(
            configuration: shipperConfiguration(address, spool: tempSpool(), batchInterval: .milliseconds(20)))
        defer { shipper.close(timeout: .zero) }
        for i in 0..<3 { try shipper.enqueue(event("i\(i)")) }
        #expect(eventually { handler.stored == 3 })  // no flush: the interval alone sends it
    }

    @Test func aTornLastLineIsCutOnRecovery() throws {
        let spool = tempSpool()
        try Posix.mkdir(spool)
        let text = event("t1").json.jsonText + "\n" + event("t2").json.jsonText + "\n" + "{\"id\":\"t3\",\"ts\""
        try Data(text.utf8).write(to: URL(fileURLWithPath: spool + "/open.log"))
        let handler = TestHandler()
        let (server, address) = try startServer(handler, maxFrame: 1 << 20)
        defer { server.stop() }
        let shipper = try EventShipper(configuration: shipperConfiguration(address, spool: spool))
        defer { shipper.close(timeout: .zero) }
        #expect(shipper.statistics.pendingEvents == 2)
        #expect(shipper.flush(timeout: .seconds(30)))
        #expect(handler.stored == 2)
        #expect(handler.state.withLock { $0.ids } == ["t1", "t2"])
    }

    @Test func tcpReporterReportsAndFlushes() throws {
        let handler = TestHandler()
        let (server, address) = try startServer(handler, maxFrame: 1 << 20)
        defer { server.stop() }
        let reporter = try SpooledATLPReporter(configuration: shipperConfiguration(address, spool: tempSpool()), flushTimeout: .seconds(30))
        defer { reporter.shipper.close(timeout: .zero) }
        try reporter.report(event("r1"))
        try reporter.report(event("r2"))
        try reporter.flush()
        #expect(handler.stored == 2)

        let nowhere = try SpooledATLPReporter(
            configuration: shipperConfiguration(try freePort(), spool: tempSpool()), flushTimeout: .milliseconds(50))
        defer { nowhere.shipper.close(timeout: .zero) }
        try nowhere.report(event("r3"))
        #expect(throws: TransportError.self) { try nowhere.flush() }
    }

    @Test func oneShipperPerSpoolAtATime() throws {
        let address = try freePort()
        let spool = tempSpool()
        let first = try EventShipper(configuration: shipperConfiguration(address, spool: spool))
        do {
            _ = try EventShipper(configuration: shipperConfiguration(address, spool: spool))
            Issue.record("two shippers opened one spool")
        } catch {
            #expect(error.code == .io)
            #expect(error.description.contains("in use by another shipper"))
        }
        first.close(timeout: .zero)
        let next = try EventShipper(configuration: shipperConfiguration(address, spool: spool))
        next.close(timeout: .zero)
    }

    @Test func backoffGrowsIsCappedAndJittered() {
        let b = Backoff(initial: .milliseconds(100), maximum: .seconds(1), multiplier: 2, jitter: 0.5, random: { 0 })
        #expect(b.delay(afterFailures: 0) == .zero)
        #expect(b.delay(afterFailures: 1) == .milliseconds(50))
        #expect(b.delay(afterFailures: 3) == .milliseconds(200))
        #expect(b.delay(afterFailures: 40) == .milliseconds(500))
        let top = Backoff(initial: .milliseconds(100), maximum: .seconds(1), jitter: 0.5, random: { 0.999_999 })
        #expect(top.delay(afterFailures: 40) <= .seconds(1))
        #expect(top.delay(afterFailures: 40) > .milliseconds(999))
    }
}

extension EventShipperConfiguration {
    /// A copy with `change` applied.
    func with(_ change: (inout EventShipperConfiguration) -> Void) -> EventShipperConfiguration {
        var copy = self
        change(&copy)
        return copy
    }
}
