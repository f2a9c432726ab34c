import SecureChannel
import SystemCalls

/// One client connection, as the I/O thread sees it. Touched only by that thread.
final class HTTPConnection {
    /// Where the connection is in its life; it only moves forward.
    enum Phase {
        /// Reading requests and answering them in order.
        case reading
        /// Nothing more is read for requests (end of stream, a failure, a timeout, `Connection:
        /// close`, the server stopping): what was read is answered and sent, then our side shuts down.
        case finishing
        /// Our side is shut down; the peer's bytes are read only to be discarded, until its end of
        /// stream or `until`, so unread bytes do not turn our last response into a reset.
        case lingering(until: ContinuousClock.Instant)
    }

    let id: UInt64
    let fd: Int32
    let peer: SocketAddress
    let acceptedAt: ContinuousClock.Instant
    /// Accepted only to be told 503; not counted as open.
    let isRefusal: Bool
    var phase: Phase
    var parser: RequestParser
    /// The TLS channel the bytes go through; nil for plain HTTP.
    var channel: (any SecureChannel)?
    /// Items read and not yet answered, in order.
    var inbox: [ParsedItem] = []
    var inboxHead = 0
    /// A worker is answering this connection's head item.
    var answering = false
    /// Requests read from this connection so far.
    var requestsRead = 0
    /// Bytes read from the socket so far.
    var bytesRead = 0
    var output: [UInt8] = []
    var outputOffset = 0
    /// When the server last began waiting on the client (nothing queued, answering or unsent).
    var waitingSince: ContinuousClock.Instant
    /// When the head or the body in progress began arriving; nil when none is.
    var partialSince: ContinuousClock.Instant?
    /// When unsent output last moved (or appeared).
    var lastSendProgress: ContinuousClock.Instant
    /// The interest last given to epoll (-1: not registered yet).
    var registered: Int16 = -1

    init(
        id: UInt64, fd: Int32, peer: SocketAddress, limits: HTTPServerConfiguration, secure: Bool,
        now: ContinuousClock.Instant, isRefusal: Bool = false
    ) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.acceptedAt = now
        self.isRefusal = isRefusal
        self.phase = isRefusal ? .finishing : .reading
        self.parser = RequestParser(limits: limits, peer: peer, isSecure: secure)
        self.waitingSince = now
        self.lastSendProgress = now
    }

    var pendingCount: Int { inbox.count - inboxHead }
    var unsentCount: Int { output.count - outputOffset }

    /// The server waits on the client: nothing queued, being answered or unsent.
    var waitsOnClient: Bool { pendingCount == 0 && !answering && unsentCount == 0 }

    var isReading: Bool {
        if case .reading = phase { return true }
        return false
    }

    var isLingering: Bool {
        if case .lingering = phase { return true }
        return false
    }

    /// Stops reading requests: what was read is still answered.
    func finish() {
        if case .reading = phase { phase = .finishing }
    }

    func popItem() -> ParsedItem? {
        guard inboxHead < inbox.count else { return nil }
        let item = inbox[inboxHead]
        inboxHead += 1
        if inboxHead == inbox.count {
            inbox.removeAll(keepingCapacity: true)
            inboxHead = 0
        }
        return item
    }

    /// Drops what was read and not yet answered (after a closing response).
    func discardInbox() {
        inbox.removeAll()
        inboxHead = 0
    }
}
