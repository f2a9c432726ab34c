import ATLPWire
import SecureChannel
import SystemCalls

/// One client connection, as the I/O thread sees it. Touched only by that thread.
final class ServerConnection {
    /// Where the connection is in its life; it only moves forward.
    enum Phase {
        /// Reading requests and answering them in order.
        case reading
        /// Nothing more is read from the socket (end of stream, a framing error, a closing `ERR`,
        /// the server stopping): what was read is answered and sent, every complete request
        /// still buffered included (unless `answersBuffered` is false), then our side shuts down.
        case finishing
        /// Our side is shut down; the peer's bytes are read only to be discarded, until its end of
        /// stream or `until`, so unread bytes do not turn our last frame into a reset.
        case lingering(until: ContinuousClock.Instant)
    }

    let id: UInt64
    let fd: Int32
    let peer: String
    /// The peer's IP address (the per-address limits' key).
    let host: String
    let acceptedAt: ContinuousClock.Instant
    /// Since when a frame has been in progress while the server waited on the client (the
    /// minimum-rate clock); nil when no partial frame is buffered.
    var partialSince: ContinuousClock.Instant?
    /// Accepted only to be told `too-many-connections`; not counted as open.
    let isRefusal: Bool
    var phase: Phase
    /// The accepted `HELLO`; nil until then.
    var session: Session?
    var decoder: FrameDecoder
    /// The TLS (or other) channel the bytes go through; nil for plain TCP.
    var channel: (any SecureChannel)?
    /// Items read and not yet handed to a worker, in order.
    var inbox: [InboundItem] = []
    var inboxHead = 0
    /// Complete requests still in `decoder` are answered while finishing; false after a
    /// closing error (nothing read after it is answered) or a framing error (the decoder is dead).
    var answersBuffered = true
    /// A worker is answering this connection's head item.
    var answering = false
    /// Its `HELLO` was held back at least once (its address failed authentication recently).
    var throttled = false
    var output: [UInt8] = []
    var outputOffset = 0
    var lastActivity: ContinuousClock.Instant
    /// A byte has been read (the first one tells TLS from plain ATLP).
    var receivedAny = false
    /// The interest last given to the poller (-1: not registered yet).
    var registered: Int16 = -1

    /// Bytes of admitted `SNAPSHOT` frames above `maxFrame` this connection holds (read or being
    /// answered), counted in the server's snapshot memory budget.
    var largeFrameBytes = 0
    /// The size of the large frame being answered now (0: the item being answered is not one).
    var answeringLargeFrame = 0

    init(
        id: UInt64, fd: Int32, peer: SocketAddress, maxFrame: Int, maxSnapshotFrame: Int, now: ContinuousClock.Instant,
        isRefusal: Bool = false
    ) {
        self.id = id
        self.fd = fd
        self.peer = peer.description
        self.host = peer.host
        self.acceptedAt = now
        self.isRefusal = isRefusal
        self.phase = isRefusal ? .finishing : .reading
        self.decoder = FrameDecoder(maxFrame: maxFrame, maxSnapshotFrame: maxSnapshotFrame)
        self.lastActivity = now
    }

    var pendingCount: Int { inbox.count - inboxHead }
    var unsentCount: Int { output.count - outputOffset }

    /// The server waits on the client: nothing queued, being answered or unsent.
    var waitsOnClient: Bool { pendingCount == 0 && !answering && unsentCount == 0 }

    var isLingering: Bool {
        if case .lingering = phase { return true }
        return false
    }

    /// Stops reading requests: what was read is still answered.
    func finish() {
        if case .reading = phase { phase = .finishing }
    }

    func popItem() -> InboundItem? {
        guard inboxHead < inbox.count else { return nil }
        let item = inbox[inboxHead]
        inboxHead += 1
        if inboxHead == inbox.count {
            inbox.removeAll(keepingCapacity: true)
            inboxHead = 0
        }
        return item
    }

    /// Drops what was read and not yet answered, buffered requests included (after a closing `ERR`).
    func discardInbox() {
        inbox.removeAll()
        inboxHead = 0
        answersBuffered = false
    }

    /// Requests are still cut from the buffered bytes: while reading, and while finishing
    /// unless a closing error came first.
    var takesRequests: Bool {
        switch phase {
        case .reading: return true
        case .finishing: return answersBuffered
        case .lingering: return false
        }
    }
}
