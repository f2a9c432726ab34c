import ConnectionLoop
import Synchronization
import SystemCalls

/// What the echo server counts, for the tests to read.
struct EchoStatistics: Sendable {
    var opened = 0
    var closed = 0
    var refused = 0
    var idleClosed = 0
    var answered = 0
    /// Plaintext bytes the protocol was handed: what the loop read.
    var bytesReceived = 0
    var peakUnsent = 0
}

/// A tiny line protocol to test the loop with: each line is answered by a worker with the same
/// line, `big:N` with N bytes of `b` and a line end, `quit` with `bye` and a close. A line longer
/// than `maxLine` stops reading (the protocol's bound on undecoded bytes). Small enough to be its
/// own four parts.
final class EchoProtocol: ConnectionProtocol, ConnectionDecoder, ConnectionResponder, ConnectionAdmission, ConnectionDeadlines {
    typealias P = EchoProtocol
    struct State {
        var buffer: [UInt8] = []
    }
    typealias Item = [UInt8]
    typealias Answer = [UInt8]
    typealias Statistics = EchoStatistics

    let shared: LoopShared<[UInt8], EchoStatistics>
    let maxLine = 1024

    init(shared: LoopShared<[UInt8], EchoStatistics>) {
        self.shared = shared
    }

    var decoder: EchoProtocol { self }
    var responder: EchoProtocol { self }
    var admission: EchoProtocol { self }
    var deadlines: EchoProtocol { self }

    func makeState(peer: SocketAddress, now: ContinuousClock.Instant) -> State { State() }

    func hasRoom(_ c: Connection<EchoProtocol>) -> Bool { c.state.buffer.count <= maxLine }

    func received(_ bytes: UnsafeRawBufferPointer, on c: Connection<EchoProtocol>, loop: Loop) {
        c.state.buffer.append(contentsOf: bytes)
        shared.statistics.withLock { $0.bytesReceived += bytes.count }
    }

    private func extractLines(_ c: Connection<EchoProtocol>, _ loop: Loop) {
        while c.takesRequests, c.pendingCount < loop.settings.maxPendingRequests,
            let end = c.state.buffer.firstIndex(of: UInt8(ascii: "\n"))
        {
            c.enqueue(Array(c.state.buffer[..<end]))
            c.state.buffer.removeFirst(end + 1)
        }
    }

    func advance(_ c: Connection<EchoProtocol>, loop: Loop) {
        guard !c.answering, c.unsentCount < loop.settings.maxOutputBytes else { return }
        extractLines(c, loop)
        guard let line = c.popItem() else { return }
        loop.answer(c) { Self.reply(to: line) }
    }

    static func reply(to line: [UInt8]) -> [UInt8] {
        let text = String(decoding: line, as: UTF8.self)
        if text == "quit" { return Array("bye\n".utf8) }
        if text.hasPrefix("big:"), let n = Int(text.dropFirst(4)) { return [UInt8](repeating: UInt8(ascii: "b"), count: n) + [10] }
        return line + [10]
    }

    func answersBufferedRequest(_ c: Connection<EchoProtocol>, loop: Loop) -> Bool {
        extractLines(c, loop)
        guard c.pendingCount > 0 else { return false }
        advance(c, loop: loop)
        return true
    }

    func answered(_ answer: [UInt8], on c: Connection<EchoProtocol>, loop: Loop) {
        loop.queue(answer, on: c)
        let unsent = c.unsentCount
        shared.statistics.withLock {
            $0.answered += 1
            $0.peakUnsent = max($0.peakUnsent, unsent)
        }
        if answer == Array("bye\n".utf8) {
            c.finish()
            c.discardInbox()
        }
        loop.flush(c)
        if loop.connections[c.id] != nil { loop.finishIfDone(c) }
    }

    func refusal(_ cause: RefusalCause) -> [UInt8] { Array("busy\n".utf8) }
    func countRefusal() { shared.statistics.withLock { $0.refused += 1 } }
    func opened(_ c: Connection<EchoProtocol>, loop: Loop) { shared.statistics.withLock { $0.opened += 1 } }
    func closed(_ c: Connection<EchoProtocol>, loop: Loop) { shared.statistics.withLock { $0.closed += 1 } }
    func closingIdle(_ c: Connection<EchoProtocol>) { shared.statistics.withLock { $0.idleClosed += 1 } }
}

/// An echo server on loopback (an ephemeral port) with the loop's `settings`.
final class EchoServer {
    let service = LoopService<EchoProtocol>(name: "echo", what: "echo server", statistics: EchoStatistics())
    let address: SocketAddress

    init(_ settings: ConnectionLoopSettings) throws {
        let shared = service.shared
        address = try service.start(host: "127.0.0.1", port: 0, workerThreads: 2, settings: settings, security: nil) {
            EchoProtocol(shared: shared)
        }
    }

    var statistics: EchoStatistics { service.shared.statistics.withLock { $0 } }

    func stop() { service.stop() }
}

extension ConnectionLoopSettings {
    /// Small limits for tests.
    static func echo(
        maxConnections: Int = 8, maxPendingRequests: Int = 4, maxOutputBytes: Int = 64 << 10, idleTimeout: Duration? = nil
    ) -> ConnectionLoopSettings {
        ConnectionLoopSettings(
            maxConnections: maxConnections, maxConnectionsPerAddress: 8, maxPendingRequests: maxPendingRequests,
            maxOutputBytes: maxOutputBytes, idleTimeout: idleTimeout, pollInterval: .milliseconds(20),
            stopGracePeriod: .seconds(2), lingerTime: .milliseconds(500))
    }
}

/// A blocking client on a raw socket.
final class LineClient {
    let fd: Int32

    init(_ address: SocketAddress, receiveBuffer: Int32? = nil) throws {
        fd = try Posix.socket(address)
        if let receiveBuffer { try Posix.setOption(fd, SOL_SOCKET, SO_RCVBUF, receiveBuffer, "SO_RCVBUF") }
        try Posix.connect(fd, address, timeout: .seconds(5))
        try Posix.setTimeouts(fd, .seconds(10))
    }

    deinit { Posix.close(fd) }

    func send(_ text: String) throws { try Posix.sendAll(fd, Array(text.utf8)) }

    /// One read: bytes, [] at the end of the stream, nil on timeout.
    func read() throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let r = try Posix.withMutableBytes(&buffer) { (raw) throws(PosixError) -> IOResult in try Posix.read(fd, into: raw) }
        switch r {
        case .wouldBlock: return nil
        case .processed(let n): return Array(buffer[0..<n])
        }
    }

    /// Reads until `count` bytes came, the stream ended, or a read timed out.
    func read(count: Int) throws -> [UInt8] {
        var got: [UInt8] = []
        while got.count < count, let bytes = try read(), !bytes.isEmpty { got += bytes }
        return got
    }

    /// Reads until the end of the stream (true) or a read timed out (false).
    func readToEnd() throws -> (bytes: [UInt8], ended: Bool) {
        var got: [UInt8] = []
        for _ in 0..<100_000 {
            guard let bytes = try read() else { return (got, false) }
            if bytes.isEmpty { return (got, true) }
            got += bytes
        }
        return (got, false)
    }
}

/// Polls `condition` every 10 ms for up to `timeout`.
func eventually(within timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        Posix.sleep(.milliseconds(10))
    }
    return condition()
}
