public import ATLPWire
public import EventModel
public import SecureChannel
public import SystemCalls

/// A synchronous ATLP/1 client connection for one-off requests (`rules publish`, `CONFIG`,
/// `PING`, tests): blocking calls with timeouts, used by one thread at a time — a thread
/// of the caller's, never a task of the Swift concurrency pool.
public final class ATLPConnection {
    public let address: SocketAddress
    /// Set once `hello` succeeded.
    public private(set) var welcome: Welcome?
    private var fd: Int32
    private var decoder: FrameDecoder
    private var buffer = [UInt8](repeating: 0, count: 65536)
    private let timeout: Duration
    /// The TLS (or other) channel the bytes go through; nil for plain TCP.
    private var channel: (any SecureChannel)?

    /// Connects (no `HELLO` yet); `timeout` bounds the connect and every later read or write.
    /// `maxReply` bounds the replies accepted (a `RULES` can be large). With `security` (e.g.
    /// `TLSContext.client(trusting:).channels` from ATLPTLS) the connection completes a handshake
    /// through a channel made for `address.host` before anything else.
    public init(
        to address: SocketAddress, timeout: Duration = .seconds(10), maxReply: Int = 64 << 20,
        security: SecureChannelFactory? = nil
    ) throws(TransportError) {
        self.address = address
        self.timeout = timeout
        decoder = FrameDecoder(maxFrame: maxReply)
        do {
            fd = try Posix.socket(address)
        } catch {
            throw .system(error)
        }
        do {
            try Posix.connect(fd, address, timeout: timeout)
            try Posix.setNoDelay(fd)
            try Posix.setTimeouts(fd, timeout)
        } catch {
            Posix.close(fd)
            fd = -1
            throw .system(error)
        }
        if let security {
            do {
                try handshake(security)
            } catch {
                Posix.close(fd)
                fd = -1
                throw error
            }
        }
    }

    /// Connects and says `HELLO`.
    public convenience init(
        to address: SocketAddress, hello: Hello, timeout: Duration = .seconds(10), security: SecureChannelFactory? = nil
    ) throws(TransportError) {
        try self.init(to: address, timeout: timeout, security: security)
        try self.hello(hello)
    }

    /// Runs a new channel's handshake over the socket; then everything goes through it.
    private func handshake(_ security: SecureChannelFactory) throws(TransportError) {
        var firstReply: [UInt8] = []
        do {
            let channel = try security(address.host)
            try channel.start()
            try Posix.sendAll(fd, channel.takeCiphertext())
            while !channel.isEstablished {
                let ciphertext = try readSome()
                if firstReply.isEmpty { firstReply = ciphertext }
                try channel.receive(ciphertext[...])
                try Posix.sendAll(fd, channel.takeCiphertext())
            }
            self.channel = channel
        } catch let error as SecureChannelError {
            if let plain = TransportError.plainAnswer(reply: firstReply, from: address) { throw plain }
            throw TransportError(.security, "TLS with \(address) failed: \(error)")
        } catch let error as PosixError {
            throw .system(error)
        } catch {
            throw error as! TransportError  // readSome's, the only other error thrown above
        }
    }

    /// Reads what the socket has (blocking up to the timeout); throws on timeout and end of stream.
    private func readSome() throws(TransportError) -> [UInt8] {
        let result: IOResult
        do {
            result = try Posix.withMutableBytes(&buffer) { (raw) throws(PosixError) -> IOResult in
                try Posix.read(fd, into: raw)
            }
        } catch {
            throw .system(error)
        }
        switch result {
        case .wouldBlock:
            throw TransportError(.timedOut, "no answer from \(address) within \(timeout)")
        case .processed(0):
            throw TransportError(.closed, "the collector at \(address) closed the connection")
        case .processed(let n):
            return Array(buffer[0..<n])
        }
    }

    deinit {
        if fd >= 0 { Posix.close(fd) }
    }

    /// Sends `HELLO` and reads `WELCOME`.
    @discardableResult
    public func hello(_ hello: Hello) throws(TransportError) -> Welcome {
        let reply = try request(hello.frame)
        guard let w = Welcome(reply) else {
            throw TransportError(.protocolViolation, "expected WELCOME after HELLO from \(address), got \(reply.verb)")
        }
        welcome = w
        return w
    }

    /// Sends a frame and returns the reply; an `ERR` reply throws `.remote`.
    public func request(_ frame: ATLPFrame) throws(TransportError) -> ATLPFrame {
        try send(frame)
        let reply = try receive()
        if reply.verb == "ERR" { throw .remote(ATLPError(errFrame: reply), from: address) }
        return reply
    }

    /// `PING` → `PONG`.
    public func ping() throws(TransportError) {
        let reply = try request(ATLPFrame(verb: "PING"))
        guard reply.verb == "PONG" else { throw unexpected(reply, wanted: "PONG") }
    }

    /// `CONFIG` → the rules and their etag.
    public func config() throws(TransportError) -> (etag: String, rules: [JSONValue]) {
        let reply = try request(ATLPRequest.config(JSONObject()).frame)
        guard case .changed(let etag, let rules, _, _)? = RulesUpdate(reply) else {
            throw unexpected(reply, wanted: "RULES {\"etag\":...,\"rules\":[...]}")
        }
        return (etag, rules)
    }

    /// `CONFIG {"etag":E}` → the rules (with their etag and sampling rate), or `.unchanged` when
    /// `etag` names the rules in force. Without an etag it asks for the rules outright.
    public func config(etag: String?) throws(TransportError) -> RulesUpdate {
        var body = JSONObject()
        if let etag { body["etag"] = .string(etag) }
        let reply = try request(ATLPRequest.config(body).frame)
        guard let update = RulesUpdate(reply) else {
            throw unexpected(reply, wanted: "RULES {\"etag\":...} with \"rules\":[...] or \"unchanged\":true")
        }
        return update
    }

    /// `PUBLISH` → how many rules were stored (needs an admin `HELLO`); `sampleRate` (0…1) is
    /// sent when given.
    public func publish(rules: [JSONValue], sampleRate: Double? = nil) throws(TransportError) -> Int {
        let reply = try request(ATLPRequest.publish(rules: rules, sampleRate: sampleRate).frame)
        guard let ack = PublishAck(reply) else { throw unexpected(reply, wanted: "ACK {\"stored\":n}") }
        return ack.stored
    }

    /// `EVENTS` → its `ACK`; `sentAt` (this side's clock, ms since the epoch) is sent when given.
    public func sendEvents(batch: JSONValue, events: [JSONValue], sentAt: Int64? = nil) throws(TransportError) -> BatchAck {
        let reply = try request(ATLPRequest.events(batch: batch, events: events, sentAt: sentAt).frame)
        guard let ack = BatchAck(reply) else { throw unexpected(reply, wanted: "ACK of batch \(batch.jsonText)") }
        return ack
    }

    /// `SNAPSHOT` → the stored snapshot's id (`ACK {"snapshot":S}`).
    public func sendSnapshot(_ upload: SnapshotUpload) throws(TransportError) -> Int64 {
        let reply = try request(ATLPRequest.snapshot(upload).frame)
        guard let ack = SnapshotAck(reply) else { throw unexpected(reply, wanted: "ACK {\"snapshot\":S}") }
        return ack.snapshot
    }

    /// Says `BYE`, waits for its answer, and closes.
    public func close() {
        guard fd >= 0 else { return }
        if (try? send(ATLPFrame(verb: "BYE"))) != nil { _ = try? receive() }
        Posix.close(fd)
        fd = -1
    }

    // MARK: raw access (also used by tests and the shipper)

    /// Sends one frame.
    public func send(_ frame: ATLPFrame) throws(TransportError) {
        try sendBytes(frame.encoded)
    }

    /// Sends bytes as they are (for frames built elsewhere, or for provoking errors in tests).
    public func sendBytes(_ bytes: [UInt8]) throws(TransportError) {
        guard fd >= 0 else { throw TransportError(.closed, "the connection to \(address) is closed") }
        var bytes = bytes
        if let channel {
            do {
                try channel.send(bytes)
            } catch {
                throw TransportError(.security, "TLS with \(address) failed: \(error)")
            }
            bytes = channel.takeCiphertext()
        }
        do {
            try Posix.sendAll(fd, bytes)
        } catch {
            if error.isTimeout { throw TransportError(.timedOut, "sending to \(address) timed out after \(timeout)") }
            throw .system(error)
        }
    }

    /// Reads the next frame, whatever its verb (an `ERR` is returned, not thrown).
    public func receive() throws(TransportError) -> ATLPFrame {
        guard fd >= 0 else { throw TransportError(.closed, "the connection to \(address) is closed") }
        while true {
            let payload: [UInt8]?
            do {
                payload = try decoder.next()
            } catch {
                throw TransportError(.protocolViolation, "the collector at \(address) sent a broken frame: \(error.message)")
            }
            if let payload {
                do {
                    return try ATLPFrame.parse(payload: payload)
                } catch {
                    throw TransportError(.protocolViolation, "the collector at \(address) sent \(error.message)")
                }
            }
            let bytes = try readSome()
            guard let channel else {
                decoder.append(bytes)
                continue
            }
            do {
                try channel.receive(bytes[...])
                decoder.append(try channel.readPlaintext())
                let answer = channel.takeCiphertext()
                if !answer.isEmpty { try Posix.sendAll(fd, answer) }
            } catch let error as SecureChannelError {
                throw TransportError(.security, "TLS with \(address) failed: \(error)")
            } catch {
                throw .system(error as! PosixError)
            }
            if channel.isClosed && decoder.bufferedCount == 0 {
                throw TransportError(.closed, "the collector at \(address) closed the connection")
            }
        }
    }

    /// Changes how long `receive` waits for bytes (sends keep the connect timeout).
    public func setReceiveTimeout(_ duration: Duration) throws(TransportError) {
        do {
            try Posix.setTimeouts(fd, duration, receive: true, send: false)
        } catch {
            throw .system(error)
        }
    }

    /// Half-closes: tells the peer nothing more will be sent, while its answers can still be read.
    public func finishSending() {
        if fd >= 0 { Posix.shutdownWrite(fd) }
    }

    /// The underlying descriptor, for fault injection in tests.
    package var fileDescriptor: Int32 { fd }

    private func unexpected(_ frame: ATLPFrame, wanted: String) -> TransportError {
        TransportError(.protocolViolation, "expected \(wanted) from \(address), got \(frame.description.prefix(200))")
    }
}
