package import SecureChannel
package import SystemCalls

/// One client connection as its loop's I/O thread sees it: the socket, the phase, the requests
/// read and not yet answered, the output not yet sent, the clocks, and the protocol's own state.
/// Touched only by that thread.
package final class Connection<P: ConnectionProtocol> {
    /// Where the connection is in its life; it only moves forward.
    package enum Phase {
        /// Reading requests and answering them in order.
        case reading
        /// Nothing more is read for requests (end of stream, an error, a closing answer, the server
        /// stopping): what was read is answered and sent, then our side shuts down.
        case finishing
        /// Our side is shut down; the peer's bytes are read only to be discarded, until its end of
        /// stream or `until`, so unread bytes do not turn our last answer into a reset.
        case lingering(until: ContinuousClock.Instant)
    }

    package let id: UInt64
    package let fd: Int32
    package let peer: SocketAddress
    package let acceptedAt: ContinuousClock.Instant
    /// Accepted only to be told why it is refused; not counted as open.
    package let isRefusal: Bool
    package var phase: Phase
    /// What the protocol keeps per connection (its decoder, its session, its clocks).
    package var state: P.State
    /// The TLS (or other) channel the bytes go through; nil for plain TCP.
    package var channel: (any SecureChannel)?
    /// Items read and not yet handed on, in order.
    package private(set) var inbox: [P.Item] = []
    private var inboxHead = 0
    /// Complete requests still buffered are answered while finishing; false once a closing answer
    /// is queued (nothing read after it is answered).
    package var answersBuffered = true
    /// A worker is answering this connection's head item.
    package var answering = false
    /// Bytes read from the socket so far (the first one may tell a wrong protocol).
    package var bytesRead = 0
    package var output: [UInt8] = []
    package var outputOffset = 0
    /// When a byte last moved either way (or the connection was accepted).
    package var lastActivity: ContinuousClock.Instant
    /// When unsent output last moved (or the connection was accepted).
    package var lastSendProgress: ContinuousClock.Instant
    /// When the server last began waiting on the client (its output drained with nothing queued
    /// or being answered), or when it was accepted.
    package var waitingSince: ContinuousClock.Instant
    /// The interest last given to the poller (-1: not registered yet).
    var registered: Int16 = -1

    init(
        id: UInt64, fd: Int32, peer: SocketAddress, state: P.State, channel: (any SecureChannel)?, now: ContinuousClock.Instant,
        isRefusal: Bool
    ) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.state = state
        self.channel = channel
        self.acceptedAt = now
        self.isRefusal = isRefusal
        self.phase = isRefusal ? .finishing : .reading
        self.lastActivity = now
        self.lastSendProgress = now
        self.waitingSince = now
    }

    package var pendingCount: Int { inbox.count - inboxHead }
    package var unsentCount: Int { output.count - outputOffset }

    /// The server waits on the client: nothing queued, being answered or unsent.
    package var waitsOnClient: Bool { pendingCount == 0 && !answering && unsentCount == 0 }

    package var isReading: Bool {
        if case .reading = phase { return true }
        return false
    }

    package var isLingering: Bool {
        if case .lingering = phase { return true }
        return false
    }

    /// Requests are still cut from the buffered bytes: while reading, and while finishing unless
    /// a closing answer came first.
    package var takesRequests: Bool {
        switch phase {
        case .reading: return true
        case .finishing: return answersBuffered
        case .lingering: return false
        }
    }

    /// Stops reading requests: what was read is still answered.
    package func finish() {
        if case .reading = phase { phase = .finishing }
    }

    package func enqueue(_ item: P.Item) {
        inbox.append(item)
    }

    package func popItem() -> P.Item? {
        guard inboxHead < inbox.count else { return nil }
        let item = inbox[inboxHead]
        inboxHead += 1
        if inboxHead == inbox.count {
            inbox.removeAll(keepingCapacity: true)
            inboxHead = 0
        }
        return item
    }

    /// Drops what was read and not yet answered, buffered requests included (after a closing answer).
    package func discardInbox() {
        inbox.removeAll()
        inboxHead = 0
        answersBuffered = false
    }
}
