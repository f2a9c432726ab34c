import ATLPServer
import EventModel
import Foundation
import SystemCalls
import Testing
import TestSupport

@testable import ATLPClient

/// A real client process killed with SIGKILL after `enqueue` returned: the next client on
/// its spool delivers every event. The child is this test binary, running only
/// `spoolingChild` (enabled by an environment variable).
@Suite struct KilledClientTests {
    static let childVariable = "ATLP_SPOOL_CHILD"
    static let marker = "ATLP-CHILD-SPOOLED"

    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil, "runs only as the child process"))
    func spoolingChild() throws {
        let parts = ProcessInfo.processInfo.environment[Self.childVariable]!.split(separator: "|").map(String.init)
        let address = SocketAddress(host: "127.0.0.1", port: UInt16(parts[1])!)
        let shipper = try EventShipper(configuration: shipperConfiguration(address, spool: parts[0], batchMaxEvents: 7))
        for i in 0..<40 { try shipper.enqueue(event("child-\(i)")) }
        FileHandle.standardOutput.write(Data((Self.marker + "\n").utf8))  // unbuffered
        Thread.sleep(forTimeInterval: 60)  // killed long before
    }

    @Test func aClientKilledWithSIGKILLLosesNothing() throws {
        let gate = DispatchSemaphore(value: 0)
        let handler = TestHandler(gate: gate)  // takes batches, never acknowledges while the child lives
        let (server, address) = try startServer(handler, maxFrame: 1 << 20)
        defer { server.stop() }
        let spool = tempSpool()

        let child = try #require(
            try ChildTest.killed("spoolingChild", variable: Self.childVariable, value: "\(spool)|\(address.port)", marker: Self.marker),
            "the child never spooled")
        #expect(child.ended == .signalled(SIGKILL))
        for _ in 0..<20 { gate.signal() }

        let shipper = try EventShipper(configuration: shipperConfiguration(address, spool: spool))
        defer { shipper.close(timeout: .zero) }
        #expect(shipper.statistics.pendingEvents == 40)
        #expect(shipper.flush(timeout: .seconds(30)))
        #expect(handler.stored == 40)  // each event once, whatever the child had sent
    }
}
