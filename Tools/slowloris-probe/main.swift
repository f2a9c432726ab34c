// slowloris-probe: how many clients that say HELLO at once get a WELCOME while 17 loopback
// addresses (127.0.0.2 … 127.0.0.18) hold 250 connections each, trickle their HELLOs one byte a
// second (never finishing one), and reconnect as soon as the server closes them (issue 22,
// point 4). Each address stays under the 256-per-address limit; together they outnumber the
// 4,096 slots. Run twice in one process on the collector's default limits: with every slot open
// to connections before HELLO (the server before the fix), then with the default reserve
// (`maxConnectionsBeforeHello`, half of the slots).
//
//   swift run -c release slowloris-probe [--quick]

import ATLPClient
import ATLPServer
import ATLPWire
import BenchmarkSupport
import Foundation
import Synchronization
import SystemCalls

struct WelcomeAll: ATLPHandler {
    func hello(_ hello: Hello, peer: String) -> HelloDecision { .accept(admin: false) }
    func handle(_ request: ATLPRequest, client: ConnectedClient) -> ATLPReply { .error(.badRequest, "probe server answers HELLO only") }
}

ToolArguments(
    "slowloris-probe",
    usage: Benchmark.usage(
        "slowloris-probe",
        measures: "How many honest HELLOs get a WELCOME while 17 loopback addresses hold 4,250 connections trickling HELLOs, without and with the reserve.",
        quick: "10 probes instead of 30", example: "swift run -c release slowloris-probe --quick")
).read()
let quick = Benchmark.isQuick
let addresses = 17
let perAddress = 250
let probes = quick ? 10 : 30
let warmup = Duration.seconds(12)  // past the first 10 s HELLO deadline: the attack churns

/// One attacking connection: its source address, its socket (-1: to reconnect), HELLO bytes sent.
struct Slot {
    let source: SocketAddress
    var fd: Int32 = -1
    var sent = 0
}

/// Connects `slot` from its source address, non-blocking; false when it could not.
func connect(_ slot: inout Slot, to server: SocketAddress) -> Bool {
    guard let fd = try? Posix.socket(server) else { return false }
    do {
        try Posix.bind(fd, slot.source)
        try Posix.connect(fd, server, timeout: .milliseconds(200))
        try Posix.setNonBlocking(fd)
    } catch {
        Posix.close(fd)
        return false
    }
    slot.fd = fd
    slot.sent = 0
    return true
}

/// Runs the attack until `stop`: every 250 ms each connection is checked (closed or answered:
/// reconnect at once), and once a second it sends the next byte of a HELLO it never finishes.
func attack(_ server: SocketAddress, stop: borrowing Atomic<Bool>, reconnects: borrowing Atomic<Int>) {
    let hello = Hello(appKey: "slowloris", appVersion: "1.0.0", agent: "slowloris").frame.encoded
    var slots: [Slot] = []
    for a in 0..<addresses {
        for _ in 0..<perAddress { slots.append(Slot(source: SocketAddress(host: "127.0.0.\(a + 2)", port: 0))) }
    }
    var buffer = [UInt8](repeating: 0, count: 4096)
    var round = 0
    while !stop.load(ordering: .relaxed) {
        let started = ContinuousClock.now
        for i in slots.indices {
            if slots[i].fd >= 0 {
                let result = try? buffer.withUnsafeMutableBytes { try Posix.read(slots[i].fd, into: $0) }
                if case .wouldBlock = result {
                    if round % 4 == 0 && slots[i].sent < hello.count - 1 {
                        let byte = hello[slots[i].sent]
                        if (try? [byte].withUnsafeBytes { try Posix.send(slots[i].fd, $0) }) != nil { slots[i].sent += 1 }
                    }
                    continue
                }
                Posix.close(slots[i].fd)  // closed, reset, or told why (an ERR before the close)
                slots[i].fd = -1
                reconnects.add(1, ordering: .relaxed)
            }
            _ = connect(&slots[i], to: server)
        }
        round += 1
        let spent = ContinuousClock.now - started
        if spent < .milliseconds(250) { Thread.sleep(forTimeInterval: Double((.milliseconds(250) - spent) / .milliseconds(1)) / 1000) }
    }
    for slot in slots where slot.fd >= 0 { Posix.close(slot.fd) }
}

/// Probes served out of `probes` under the attack, with `configuration`.
func measure(_ label: String, _ configuration: ATLPServerConfiguration) throws -> Int {
    let service = ATLPService(configuration: configuration, handler: WelcomeAll())
    let server = try service.start()
    let stop = Atomic<Bool>(false)
    let reconnects = Atomic<Int>(0)
    let finished = DispatchSemaphore(value: 0)
    let attacker = Thread {
        attack(server, stop: stop, reconnects: reconnects)
        finished.signal()
    }
    attacker.start()
    Thread.sleep(forTimeInterval: Double(warmup / .milliseconds(1)) / 1000)
    var served = 0
    for _ in 0..<probes {
        let started = ContinuousClock.now
        if let probe = try? ATLPConnection(to: server, hello: Hello(appKey: "probe", agent: "probe"), timeout: .seconds(3)) {
            served += 1
            probe.close()
        }
        let spent = ContinuousClock.now - started
        if spent < .seconds(1) { Thread.sleep(forTimeInterval: Double((.seconds(1) - spent) / .milliseconds(1)) / 1000) }
    }
    stop.store(true, ordering: .relaxed)
    finished.wait()
    let s = service.statistics
    service.stop()
    print(
        "\(label): \(served) of \(probes) probes served (attack reconnects \(reconnects.load(ordering: .relaxed)), "
            + "HELLO deadlines \(s.helloTimedOut), closed waiting for HELLO \(s.closedBeforeHello), refused \(s.refused))")
    return served
}

_ = Posix.raiseFileLimit(to: 16384)
var before = ATLPServerConfiguration(host: "127.0.0.1", port: 0)
before.maxConnectionsBeforeHello = before.maxConnections  // every slot open before HELLO, as before the fix
let after = ATLPServerConfiguration(host: "127.0.0.1", port: 0)
do {
    print("slowloris-probe: \(addresses) addresses x \(perAddress) trickled HELLOs, \(probes) probes from 127.0.0.1, one a second")
    let old = try measure("every slot open before HELLO", before)
    let new = try measure("half the slots at most before HELLO (default)", after)
    print("served: \(old) -> \(new) of \(probes)")
} catch {
    FileHandle.standardError.write(Data("slowloris-probe: cannot listen on 127.0.0.1: \(error)\n".utf8))
    exit(1)
}
