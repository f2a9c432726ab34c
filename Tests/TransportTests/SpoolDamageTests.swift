import ATLPServer
import ATLPWire
import EventModel
import Foundation
import Synchronization
import SystemCalls
import Testing

@testable import ATLPClient

/// What the audit did to the agent's spool (issue 16, items 1 and 2): a damaged batch on disk,
/// a batch the collector refuses whole, events that are not JSON, and a full disk mid-write.
@Suite struct SpoolDamageTests {
    /// Spools `count` events with no collector listening, in batches of `batchSize`; returns the spool.
    func spoolWithoutCollector(_ count: Int, batchSize: Int) throws -> String {
        let spool = tempSpool()
        let shipper = try EventShipper(
            configuration: shipperConfiguration(try freePort(), spool: spool, batchMaxEvents: batchSize))
        for i in 0..<count { try shipper.enqueue(event("c\(i)")) }
        shipper.close(timeout: .zero)
        return spool
    }

    @Test func twoBytesOfInvalidUTF8InOneSpooledEventSetAsideOnlyThatEvent() throws {
        let spool = try spoolWithoutCollector(3000, batchSize: 500)
        let batches = try Posix.listDirectory(spool).filter { $0.hasPrefix("batch-") }.sorted()
        #expect(batches.count == 6)
        // The audit's damage: two bytes of one event's id become invalid UTF-8.
        let damaged = spool + "/" + batches[0]
        var bytes = try Posix.readFile(damaged)
        let needle = Array("\"id\":\"c7\"".utf8)
        let at = try #require((0...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle })
        bytes.replaceSubrange((at + 6)..<(at + 8), with: [0xC3, 0x28])
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))

        let handler = TestHandler()
        let (server, address) = try startServer(handler, maxFrame: 1 << 20)
        defer { server.stop() }
        let shipper = try EventShipper(configuration: shipperConfiguration(address, spool: spool, batchMaxEvents: 500))
        defer { shipper.close(timeout: .zero) }
        #expect(shipper.flush(timeout: .seconds(60)))
        #expect(handler.stored == 2999)
        let stats = shipper.statistics
        #expect(stats.undeliverable == 1)
        #expect(stats.pendingEvents == 0)
        let said = try #require(stats.lastSetAside)
        #expect(said.contains("1 of 500 events of \(batches[0])"))
        #expect(said.contains("not valid UTF-8"))
        let aside = try Posix.listDirectory(spool + "/undeliverable").sorted()
        #expect(aside.count == 2)
        let kept = try Posix.readFile(spool + "/undeliverable/" + aside[0])
        #expect(kept.split(separator: 0x0A).count == 1)
        #expect(kept.contains(0xC3))
    }

    @Test func aBatchTheCollectorRefusesWholeIsSplitUntilTheBadEventIsAlone() throws {
        let fake = try FakeCollector(connections: 40, poison: "q13")
        defer { fake.stop() }
        let spool = tempSpool()
        let shipper = try EventShipper(configuration: shipperConfiguration(fake.address, spool: spool, batchMaxEvents: 20))
        defer { shipper.close(timeout: .zero) }
        for i in 0..<20 { try shipper.enqueue(event("q\(i)")) }
        #expect(shipper.flush(timeout: .seconds(60)))
        let acknowledged = Set(fake.acknowledged.withLock { $0 })
        #expect(acknowledged == Set((0..<20).filter { $0 != 13 }.map { "q\($0)" }))
        let stats = shipper.statistics
        #expect(stats.undeliverable == 1)
        #expect(stats.lastSetAside?.contains("bad-request: event q13 breaks a rule") == true)
        let aside = try Posix.listDirectory(spool + "/undeliverable").sorted()
        let kept = try String(contentsOfFile: spool + "/undeliverable/" + aside[0], encoding: .utf8)
        #expect(kept.contains("\"id\":\"q13\""))
        #expect(kept.split(separator: "\n").count == 1)
    }

    @Test func eventsThatAreNotOneJSONObjectAreRefusedWhenSpooled() throws {
        let shipper = try EventShipper(configuration: shipperConfiguration(try freePort(), spool: tempSpool()))
        defer { shipper.close(timeout: .zero) }
        for bad in [[0xC3, 0x28], Array("[1]".utf8), Array("{\"id\":".utf8), Array("{}\n{}".utf8), []] as [[UInt8]] {
            do throws(SpoolError) {
                try shipper.enqueue(json: bad)
                Issue.record("\(bad) must be refused")
            } catch {
                #expect(error.code == .invalidEvent)
            }
        }
        try shipper.enqueue(json: event("fine").json.jsonBytes)
        #expect(shipper.statistics.refused == 5)
        #expect(shipper.statistics.pendingEvents == 1)
    }

    @Test func aFullDiskMidLineIsCutBackSoTheNextEventIsWhole() throws {
        let directory = tempSpool()
        let spool = try Spool(directory: directory, maxBytes: 1 << 20)
        let first = Array("{\"id\":\"é1\"}".utf8)
        let second = Array("{\"id\":\"é2\",\"name\":\"ünïcödé\"}".utf8)
        let third = Array("{\"id\":\"é3\"}".utf8)
        try spool.append(first)
        // The disk fills after 5 bytes of the second line (a cut inside a two-byte character).
        FaultInjection.inject(fd: spool.openFD, writes: [.short(9), .error(ENOSPC)])
        do throws(SpoolError) {
            try spool.append(second)
            Issue.record("an append that hit ENOSPC must throw")
        } catch {
            #expect(error.code == .io)
            #expect(error.cause?.errno == ENOSPC)
            #expect(error.message.contains("refused"))
        }
        try spool.append(third)
        #expect(try Posix.readFile(directory + "/open.log") == first + [0x0A] + third + [0x0A])
        #expect(spool.pendingEvents == 2)
        let batch = try #require(try spool.seal())
        #expect(try Spool.events(of: batch, in: directory).map(Array.init) == [first, third])
        spool.release()
    }
}
